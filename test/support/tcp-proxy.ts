/**
 * A TCP proxy of a test's own in front of a shared server (PostgreSQL), so that a fault test can
 * make that server vanish or hang for the client behind the proxy without touching the server.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Every connection reset, new ones refused: the server is gone. */
  cut(): void;
  /** Nothing read or forwarded either way, connections kept open: the server hangs (as SIGSTOP). */
  freeze(): void;
  /** Back to forwarding (after a cut, new connections work again). */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let state: 'open' | 'cut' | 'frozen' = 'open';
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    if (state === 'cut') {
      client.destroy();
      return;
    }
    const upstream = net.connect(target);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    // Plain forwarding (no pipe: pipe resumes a paused source when its destination drains).
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    if (state === 'frozen') {
      client.pause();
      upstream.pause();
    }
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      state = 'cut';
      for (const [a, b] of pairs) {
        a.resetAndDestroy();
        b.destroy();
      }
      pairs.clear();
    },
    freeze() {
      state = 'frozen';
      // Unread bytes wait in the sockets' buffers, as they would for a stopped server.
      for (const [a, b] of pairs) {
        a.pause();
        b.pause();
      }
    },
    restore() {
      state = 'open';
      for (const [a, b] of pairs) {
        a.resume();
        b.resume();
      }
    },
    async close() {
      state = 'cut';
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
