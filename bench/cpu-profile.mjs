// Preloaded into the platform's Node processes by `bench serving` with BENCH_SERVING_PROFILE=<dir>
// (NODE_OPTIONS=--import; Node refuses --cpu-prof there): the first SIGUSR2 starts V8's CPU
// profiler, the second writes <dir>/<role>-<pid>.cpuprofile, so a profile covers only the measured load.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')));
      running = true;
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      const role = process.argv.slice(1).join(' ').match(/(inference-node|control|launcher|scheduler|facade)/)?.[1] ?? 'node';
      writeFileSync(join(dir, `${role}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
