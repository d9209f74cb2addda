// How slow this machine is right now, for tests that bound a time: a test beside other suites on a shared machine
// scales its bounds by this factor, measured in the same test, instead of trusting a figure taken on an idle machine.

/**
 * Runs a fixed piece of CPU work (about `cpuMs` of this process's CPU time) and answers how many times longer it took
 * on the clock than on the CPU: about 1 when a core is free for this process, N when it gets a core 1/N of the time.
 * Take it while the process is otherwise idle: CPU time is the whole process's, its other threads included.
 */
export function cpuSlowdown(cpuMs = 30): number {
  const startedAt = performance.now();
  const startedCpu = process.cpuUsage();
  let sink = 0;
  for (;;) {
    for (let i = 0; i < 50_000; i++) sink = (sink * 31 + i) % 1_000_003;
    const used = process.cpuUsage(startedCpu);
    const usedMs = (used.user + used.system) / 1000;
    if (usedMs >= cpuMs) {
      // `sink` is read so that the loop is not optimised away.
      return Math.max(1, (performance.now() - startedAt) / usedMs) + sink * 0;
    }
  }
}
