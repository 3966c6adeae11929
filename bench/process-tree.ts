/** PSS and RSS, CPU time and open file descriptors of a process and all its descendants, from /proc (Linux). */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** `root` and all its descendants. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const visit = (pid: number): void => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) visit(c);
  };
  visit(root);
  return out;
}

/** The kB fields of /proc/<pid>/smaps_rollup, in MB. */
export function smapsRollup(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]) / 1024;
  }
  return out;
}

/** Summed PSS and RSS (MB) of `root` and its descendants. */
export function treeMemory(root: number): { pss_mb: number; rss_mb: number; processes: number } {
  let pss = 0;
  let rss = 0;
  let processes = 0;
  for (const pid of processTree(root)) {
    try {
      const m = smapsRollup(pid);
      pss += m['Pss'] ?? 0;
      rss += m['Rss'] ?? 0;
      processes++;
    } catch {
      // exited between listing and reading
    }
  }
  return { pss_mb: Math.round(pss), rss_mb: Math.round(rss), processes };
}

/** CPU time (user + system) `root` and its descendants have used so far, ms (clock ticks of 10 ms). */
export function treeCpuMs(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited between listing and reading
    }
  }
  return ticks * 10;
}

/**
 * Open file descriptors of `root` and its descendants, by kind (what /proc/<pid>/fd links to):
 * sockets, pipes, anonymous inodes (eventfd, epoll, timers) and files. Handles a process leaks
 * (connections, files, worker pipes) show up here.
 */
export function treeFds(root: number): { total: number; sockets: number; pipes: number; anon: number; files: number } {
  const out = { total: 0, sockets: 0, pipes: 0, anon: 0, files: 0 };
  for (const pid of processTree(root)) {
    let names: string[];
    try {
      names = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited between listing and reading
    }
    for (const fd of names) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue; // closed meanwhile
      }
      out.total++;
      if (target.startsWith('socket:')) out.sockets++;
      else if (target.startsWith('pipe:')) out.pipes++;
      else if (target.startsWith('anon_inode:')) out.anon++;
      else out.files++;
    }
  }
  return out;
}

/** What a process of the platform is, from its command line (launcher, control, node, festival, ...). */
export function roleOf(pid: number): string {
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return 'gone';
  }
  if (cmd.includes('inference-node')) return 'node';
  if (cmd.includes('control')) return 'control';
  if (cmd.includes('launcher')) return 'launcher';
  if (cmd.includes('festival')) return 'festival';
  return cmd.split(' ')[0]?.split('/').pop() ?? 'other';
}

/** CPU time (user + system) each process of `root`'s tree has used so far, ms, by pid. */
export function cpuByProcess(root: number): Map<number, { role: string; cpuMs: number }> {
  const out = new Map<number, { role: string; cpuMs: number }>();
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, { role: roleOf(pid), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {
      // exited between listing and reading
    }
  }
  return out;
}
