/**
 * The built `silo` command as users run it: `silo serve` as a child process on a free port of
 * 127.0.0.1 (PORT=0; the `listening` log line tells the port), and the key commands of the CLI.
 * It runs the compiled code under packages/*\/dist, so `npx tsc -b` must have run (npm test does).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnTracked, type Spawned } from './processes.js';

export const SILO_BIN = fileURLToPath(new URL('../../packages/silo-server/bin/silo.js', import.meta.url));
const DIST = fileURLToPath(new URL('../../packages/silo-server/dist/cli.js', import.meta.url));

if (!fs.existsSync(DIST)) throw new Error(`${DIST} is missing: run npx tsc -b before these tests`);

/** The environment of a child: this one's PATH and such, without any SILO_ setting of the caller. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SILO_') && name !== 'PORT'));
  return { ...base, NODE_ENV: 'production', ...env };
}

export interface SiloServer extends Spawned {
  port: number;
  /** Output written after the `listening` line (and the first-start banner, if any). */
  outputAfterStart(): string;
  /** The keys (and console password of user admin) of the first-start banner, when this start created them. */
  banner?: { manage: string; access: string; adminPassword: string };
}

/** Starts `silo serve` with `env` (SILO_STORE_URL, SILO_DATA_DIR, ...) and `nodeArgs`, and waits until it listens. */
export async function startSiloServer(env: Record<string, string>, timeoutMs = 15_000, nodeArgs: string[] = []): Promise<SiloServer> {
  const proc = spawnTracked(process.execPath, [...nodeArgs, SILO_BIN, 'serve'], {
    env: childEnv({ PORT: '0', SILO_LISTEN_ADDRESS: '127.0.0.1', ...env }),
  });
  try {
    const listening = await proc.waitFor(/"msg":"listening".*"port":(\d+).*\n/, timeoutMs);
    // The banner, when printed (on stderr, which output() interleaves with stdout), follows the
    // listening line at once and ends with the help line; the listening line says whether it
    // follows (`first_start`).
    let startEnd = listening.index + listening[0].length;
    let banner: SiloServer['banner'];
    let first = /"first_start":(true|false)/.exec(listening[0])?.[1];
    if (first === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      first = String(proc.output().slice(startEnd).includes('first start on empty storage'));
    }
    if (first === 'true') {
      const end = await proc.waitFor(/More keys: .*\n/, timeoutMs);
      const manage = /manage key "default" \([^)]*\): (silo_man_\S+)/.exec(proc.output());
      const access = /access key "default":\s+(silo_acc_\S+)/.exec(proc.output());
      const admin = /user "admin", password (\S+)/.exec(proc.output());
      if (!manage || !access || !admin) throw new Error(`could not read the banner:\n${proc.output()}`);
      banner = { manage: manage[1]!, access: access[1]!, adminPassword: admin[1]! };
      startEnd = Math.max(startEnd, end.index + end[0].length);
    }
    return {
      ...proc,
      port: Number(listening[1]),
      outputAfterStart: () => proc.output().slice(startEnd),
      ...(banner ? { banner } : {}),
    };
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `silo <args>` to completion (bounded by `timeoutMs`). */
export async function runSilo(args: string[], env: Record<string, string>, timeoutMs = 15_000): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const proc = spawnTracked(process.execPath, [SILO_BIN, ...args], { env: childEnv(env) });
  proc.child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  proc.child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => void proc.kill9(), timeoutMs);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export interface CliKeys {
  account: string;
  manage: string;
  access: string;
}

/** An account (created unless it is `default`) with one manage and one access key, by the CLI. */
export async function createKeysWithCli(env: Record<string, string>, account = 'default'): Promise<CliKeys> {
  if (account !== 'default') {
    const created = await runSilo(['accounts', 'create', account], env);
    if (created.code !== 0) throw new Error(`silo accounts create failed: ${created.stderr}`);
  }
  const key = async (type: 'manage' | 'access') => {
    const r = await runSilo(['keys', 'create', '--type', type, '--name', `reliability-${type}`, '--account', account, '--json'], env);
    if (r.code !== 0) throw new Error(`silo keys create failed: ${r.stderr}`);
    return (JSON.parse(r.stdout) as { key: string }).key;
  };
  const [manage, access] = await Promise.all([key('manage'), key('access')]);
  return { account, manage, access };
}
