/**
 * Peak resident memory of a child process (a `silo serve`), read from /proc every `everyMs` until
 * stop(): what the operating system sees, caches, buffers and garbage included.
 */
import fs from 'node:fs';

export interface RssSampler {
  /** Stops sampling; the peak in bytes, and how many samples it rests on. */
  stop(): { peak: number; samples: number };
}

export function sampleRss(pid: number, everyMs = 50): RssSampler {
  let peak = 0;
  let samples = 0;
  const read = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) {
        peak = Math.max(peak, Number(m[1]) * 1024);
        samples++;
      }
    } catch {
      // The process is gone: the test fails on its own checks.
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return { peak, samples };
    },
  };
}
