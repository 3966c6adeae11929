/**
 * Node discovery through the Kubernetes API: watches the pods of the inference-node deployment by
 * label (list + watch, with @kubernetes/client-node's informer) and polls every ready pod with an
 * IP on the node gRPC port. A pod that stops being ready leaves the targets at once (no new work);
 * one that is deleted is also forgotten by the membership, so jobs still on it are retried.
 */
import { CoreV1Api, KubeConfig, makeInformer, type Informer, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from '@tts/common';
import type { NodePoller } from './node-poller.js';

/** Options of the Kubernetes discovery. */
export interface KubernetesDiscoveryOptions {
  readonly namespace: string;
  readonly labelSelector: string;
  /** gRPC port of the node containers. */
  readonly grpcPort: number;
  /** Kubeconfig file; undefined = the in-cluster service account. */
  readonly kubeconfig: string | undefined;
  readonly poller: NodePoller;
  readonly logger: Logger;
  /** Delay before re-listing after the watch failed, ms. @default 2000 */
  readonly retryMs?: number;
}

/** A running discovery. */
export interface KubernetesDiscovery {
  stop(): Promise<void>;
}

/** True when the pod can take work: running, Ready, has an IP, not being deleted. */
export function podIsReady(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if (pod.status?.phase !== 'Running' || !pod.status.podIP) return false;
  return (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** host:port of a pod's gRPC endpoint (IPv6 in brackets). */
export function podAddress(pod: V1Pod, port: number): string {
  const ip = pod.status?.podIP ?? '';
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** Starts watching; resolves once the first list arrived (or failed, logged and retried). */
export async function startKubernetesDiscovery(o: KubernetesDiscoveryOptions): Promise<KubernetesDiscovery> {
  const kc = new KubeConfig();
  if (o.kubeconfig !== undefined) kc.loadFromFile(o.kubeconfig);
  else kc.loadFromCluster();
  const api = kc.makeApiClient(CoreV1Api);
  const path = `/api/v1/namespaces/${encodeURIComponent(o.namespace)}/pods`;
  const informer: Informer<V1Pod> = makeInformer(kc, path, () => api.listNamespacedPod({ namespace: o.namespace, labelSelector: o.labelSelector }), o.labelSelector);
  const keyOf = (pod: V1Pod): string => `${pod.metadata?.namespace ?? o.namespace}/${pod.metadata?.name ?? ''}`;
  const update = (pod: V1Pod): void => {
    const key = keyOf(pod);
    if (podIsReady(pod)) o.poller.set(key, podAddress(pod, o.grpcPort));
    else o.poller.delete(key);
  };
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  informer.on('add', update);
  informer.on('update', update);
  informer.on('delete', (pod) => o.poller.delete(keyOf(pod)));
  informer.on('error', (err: unknown) => {
    if (stopped) return;
    o.logger.warn('kubernetes pod watch failed; retrying', { err: err instanceof Error ? err.message : String(err) });
    retry = setTimeout(() => void informer.start().catch(() => undefined), o.retryMs ?? 2000);
    retry.unref();
  });
  await informer.start().catch((err: unknown) => o.logger.warn('kubernetes pod list failed', { err: err instanceof Error ? err.message : String(err) }));
  o.logger.info('kubernetes discovery started', { namespace: o.namespace, label_selector: o.labelSelector, pods: o.poller.keys().length });
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await informer.stop();
    },
  };
}
