/**
 * TLS and mutual TLS of every gRPC hop (facade -> scheduler, facade -> node, scheduler -> node,
 * node -> scheduler), from one set of variables every process reads:
 *
 *   TTS_GRPC_TLS_CERT          PEM certificate (chain) this process presents, as server and client
 *   TTS_GRPC_TLS_KEY           its PEM private key
 *   TTS_GRPC_TLS_CA            PEM CA bundle peers' certificates must chain to
 *   TTS_GRPC_TLS_CLIENT_AUTH   require (mutual TLS, default) | none (servers ask no client certificate)
 *   TTS_GRPC_TLS_REFRESH_MS    how often the three files are re-read (default 60000)
 *   TTS_GRPC_TLS_SERVER_NAME   name peers' certificates are checked against instead of the dialed
 *                              host (pods dialed by IP); default: the dialed host
 *
 * Unset, every hop stays plaintext, which a server accepts only on loopback and Unix sockets (the
 * one-machine start): beyond them it refuses to start (checkPlaintextListen) unless
 *
 *   TTS_GRPC_ALLOW_PLAINTEXT   true: serve plaintext beyond loopback too (a network that encrypts
 *                              on its own, e.g. a service mesh; the Helm chart with tls.enabled=false)
 *
 * Set, the
 * process serves and dials TLS only: a plaintext peer is refused. The files are validated at start
 * (they parse, the key matches the certificate, the certificate chains to the CA and is in its
 * validity period); a change on disk is picked up within the refresh interval without a restart,
 * and a change that does not validate (e.g. a certificate written before its key) keeps the last
 * good material until the next read.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ServerCredentials, credentials, experimental, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { ConfigError, envBool, envEnum, envInt, envOptional } from '../config/env.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Whether servers demand a client certificate. */
export const GRPC_CLIENT_AUTH_MODES = ['require', 'none'] as const;
export type GrpcClientAuth = (typeof GRPC_CLIENT_AUTH_MODES)[number];

/** The TLS settings of gRPC, as read from the environment. */
export interface GrpcTlsConfig {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
  /** @default "require" */
  readonly clientAuth: GrpcClientAuth;
  /** @default 60000 */
  readonly refreshMs: number;
  /** Name peers' certificates must carry instead of the dialed host. */
  readonly serverName?: string;
}

/** The PEM files behind the variables, for messages that name the variable. */
const FILE_VARIABLES = { certFile: 'TTS_GRPC_TLS_CERT', keyFile: 'TTS_GRPC_TLS_KEY', caFile: 'TTS_GRPC_TLS_CA' } as const;

/**
 * The gRPC TLS settings, or undefined when none of the file variables is set (plaintext). Throws
 * ConfigError naming the variable when only some are set or the files do not validate.
 */
export function readGrpcTlsConfig(env: Env = process.env): GrpcTlsConfig | undefined {
  const files = {
    certFile: envOptional(env, FILE_VARIABLES.certFile),
    keyFile: envOptional(env, FILE_VARIABLES.keyFile),
    caFile: envOptional(env, FILE_VARIABLES.caFile),
  };
  const given = Object.values(files).filter((f) => f !== undefined).length;
  if (given === 0) {
    for (const name of ['TTS_GRPC_TLS_CLIENT_AUTH', 'TTS_GRPC_TLS_SERVER_NAME']) {
      if (envOptional(env, name) !== undefined) throw new ConfigError(name, 'is set but TTS_GRPC_TLS_CERT, TTS_GRPC_TLS_KEY and TTS_GRPC_TLS_CA are not');
    }
    return undefined;
  }
  for (const [key, name] of Object.entries(FILE_VARIABLES)) {
    if (files[key as keyof typeof files] === undefined) throw new ConfigError(name, 'must be set with the other TTS_GRPC_TLS_* files (certificate, key and CA)');
  }
  const serverName = envOptional(env, 'TTS_GRPC_TLS_SERVER_NAME');
  const config: GrpcTlsConfig = Object.freeze({
    certFile: files.certFile as string,
    keyFile: files.keyFile as string,
    caFile: files.caFile as string,
    clientAuth: envEnum(env, 'TTS_GRPC_TLS_CLIENT_AUTH', GRPC_CLIENT_AUTH_MODES, 'require'),
    refreshMs: envInt(env, 'TTS_GRPC_TLS_REFRESH_MS', 60_000, { min: 100, max: 86_400_000 }),
    ...(serverName !== undefined ? { serverName } : {}),
  });
  const material = { cert: readPem(config, 'certFile'), key: readPem(config, 'keyFile'), ca: readPem(config, 'caFile') };
  const problem = checkMaterial(material);
  if (problem) throw new ConfigError(problem.variable, problem.message);
  return config;
}

/** Hosts a server may listen on in plaintext without TTS_GRPC_ALLOW_PLAINTEXT. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);

/** Where a gRPC server listens: a Unix socket, or a host (and a port). */
export interface GrpcListenAddress {
  readonly host: string;
  readonly socketPath?: string | undefined;
}

/**
 * Refuses (ConfigError naming TTS_GRPC_TLS_CERT) a server about to listen in plaintext beyond
 * loopback: callers there would send tokens and audio in the clear and could not tell the server
 * from an impostor. TTS_GRPC_ALLOW_PLAINTEXT=true is the explicit opt-out.
 */
export function checkPlaintextListen(listen: GrpcListenAddress, tls: GrpcTlsConfig | undefined, env: Env = process.env): void {
  if (tls !== undefined || listen.socketPath !== undefined || LOOPBACK_HOSTS.has(listen.host)) return;
  if (envBool(env, 'TTS_GRPC_ALLOW_PLAINTEXT', false)) return;
  throw new ConfigError(
    FILE_VARIABLES.certFile,
    `is required (with TTS_GRPC_TLS_KEY and TTS_GRPC_TLS_CA) to serve gRPC on ${listen.host}, beyond loopback; set TTS_GRPC_ALLOW_PLAINTEXT=true only where the network encrypts on its own`,
  );
}

function readPem(config: GrpcTlsConfig, key: keyof typeof FILE_VARIABLES): Buffer {
  try {
    return readFileSync(config[key]);
  } catch (err) {
    throw new ConfigError(FILE_VARIABLES[key], `cannot read ${config[key]}: ${(err as Error).message}`);
  }
}

/** One read of the three files. */
interface Material {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer;
}

/** The PEM certificates of a bundle, parsed. */
function certificatesOf(pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

/** Why a certificate, key and CA cannot be used together; undefined when they can. */
function checkMaterial(m: Material, now = new Date()): { variable: string; message: string } | undefined {
  let chain: X509Certificate[];
  let cas: X509Certificate[];
  let key: KeyObject;
  try {
    chain = certificatesOf(m.cert);
  } catch (err) {
    return { variable: FILE_VARIABLES.certFile, message: `is not a PEM certificate: ${(err as Error).message}` };
  }
  try {
    cas = certificatesOf(m.ca);
  } catch (err) {
    return { variable: FILE_VARIABLES.caFile, message: `is not a PEM certificate bundle: ${(err as Error).message}` };
  }
  try {
    key = createPrivateKey(m.key);
  } catch (err) {
    return { variable: FILE_VARIABLES.keyFile, message: `is not a PEM private key: ${(err as Error).message}` };
  }
  const leaf = chain[0];
  if (!leaf) return { variable: FILE_VARIABLES.certFile, message: 'holds no PEM certificate' };
  if (cas.length === 0) return { variable: FILE_VARIABLES.caFile, message: 'holds no PEM certificate' };
  if (!leaf.checkPrivateKey(key)) return { variable: FILE_VARIABLES.keyFile, message: `does not match the certificate in ${FILE_VARIABLES.certFile}` };
  if (new Date(leaf.validTo) < now) return { variable: FILE_VARIABLES.certFile, message: `expired on ${leaf.validTo}` };
  if (new Date(leaf.validFrom) > now) return { variable: FILE_VARIABLES.certFile, message: `is not valid before ${leaf.validFrom}` };
  const issuers = [...chain.slice(1), ...cas];
  if (!issuers.some((issuer) => leaf.checkIssued(issuer) && leaf.verify(issuer.publicKey))) {
    return { variable: FILE_VARIABLES.caFile, message: `does not hold the issuer of the certificate in ${FILE_VARIABLES.certFile} (${leaf.issuer.replace(/\n/g, ', ')})` };
  }
  return undefined;
}

/**
 * The certificate provider grpc-js watches: re-reads the three files every `refreshMs` and passes
 * on material that validates; material that does not is logged and the last good one kept.
 */
export class ValidatingFileCertificateProvider implements experimental.CertificateProvider {
  private current: Material | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly caListeners = new Set<experimental.CaCertificateUpdateListener>();
  private readonly identityListeners = new Set<experimental.IdentityCertificateUpdateListener>();

  constructor(
    private readonly config: GrpcTlsConfig,
    private readonly onProblem: (message: string) => void = () => {},
  ) {}

  /** Reads the files once; resolves true when they validated (now or before). */
  async refresh(): Promise<boolean> {
    let m: Material;
    try {
      const [cert, key, ca] = await Promise.all([readFile(this.config.certFile), readFile(this.config.keyFile), readFile(this.config.caFile)]);
      m = { cert, key, ca };
    } catch (err) {
      this.onProblem(`gRPC TLS files unreadable, keeping the previous ones: ${(err as Error).message}`);
      return this.current !== undefined;
    }
    const c = this.current;
    if (c && c.cert.equals(m.cert) && c.key.equals(m.key) && c.ca.equals(m.ca)) return true;
    const problem = checkMaterial(m);
    if (problem) {
      this.onProblem(`gRPC TLS files not reloaded, keeping the previous ones: ${problem.variable} ${problem.message}`);
      return this.current !== undefined;
    }
    this.current = m;
    for (const l of this.identityListeners) l({ certificate: m.cert, privateKey: m.key });
    for (const l of this.caListeners) l({ caCertificate: m.ca });
    return true;
  }

  /** Starts re-reading every refresh interval (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), this.config.refreshMs);
    this.timer.unref();
  }

  /** Stops re-reading. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  addCaCertificateListener(listener: experimental.CaCertificateUpdateListener): void {
    this.caListeners.add(listener);
    // On the next tick, as grpc-js's own providers do: its credentials register their watchers after this call.
    const c = this.current;
    if (c) process.nextTick(listener, { caCertificate: c.ca });
  }

  removeCaCertificateListener(listener: experimental.CaCertificateUpdateListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.add(listener);
    const c = this.current;
    if (c) process.nextTick(listener, { certificate: c.cert, privateKey: c.key });
  }

  removeIdentityCertificateListener(listener: experimental.IdentityCertificateUpdateListener): void {
    this.identityListeners.delete(listener);
  }
}

/** The credentials and channel options every gRPC server and client of the process uses. */
export interface GrpcTransportSecurity {
  readonly serverCredentials: () => ServerCredentials;
  readonly channelCredentials: () => ChannelCredentials;
  readonly channelOptions: ChannelOptions;
}

const PLAINTEXT: GrpcTransportSecurity = {
  serverCredentials: () => ServerCredentials.createInsecure(),
  channelCredentials: () => credentials.createInsecure(),
  channelOptions: {},
};

let security: GrpcTransportSecurity = PLAINTEXT;
let provider: ValidatingFileCertificateProvider | undefined;
let configured: string | undefined;

/**
 * Makes every gRPC server and client the process creates from now on use TLS with `config`
 * (undefined: plaintext again). Resolves once the files are loaded. One setting per process: the
 * facade, the scheduler and the node call it from their start with their config.
 */
export async function configureGrpcTls(config: GrpcTlsConfig | undefined, onProblem?: (message: string) => void): Promise<void> {
  // Several components in one process (tests, the launcher) configure the same files: keep the provider.
  const key = config ? JSON.stringify(config) : undefined;
  if (key === configured) return;
  configured = undefined;
  provider?.stop();
  provider = undefined;
  if (!config) {
    security = PLAINTEXT;
    return;
  }
  const p = new ValidatingFileCertificateProvider(config, onProblem);
  if (!(await p.refresh())) throw new ConfigError(FILE_VARIABLES.certFile, 'the TLS files did not validate');
  p.start();
  provider = p;
  configured = key;
  const requireClient = config.clientAuth === 'require';
  // One credentials object per process: grpc-js shares connections among channels with equal credentials.
  const channel = experimental.createCertificateProviderChannelCredentials(p, p);
  security = {
    serverCredentials: () => experimental.createCertificateProviderServerCredentials(p, requireClient ? p : null, requireClient),
    channelCredentials: () => channel,
    channelOptions: config.serverName !== undefined ? { 'grpc.ssl_target_name_override': config.serverName } : {},
  };
}

/** The process's current gRPC transport security (plaintext unless configureGrpcTls set TLS). */
export function grpcTransportSecurity(): GrpcTransportSecurity {
  return security;
}

/** True when configureGrpcTls set TLS. */
export function grpcTlsEnabled(): boolean {
  return security !== PLAINTEXT;
}
