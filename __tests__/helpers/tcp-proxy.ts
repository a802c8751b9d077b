/** A TCP proxy on 127.0.0.1:0 that can be cut (every connection dropped, new ones refused) and restored. */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    pairs.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      pairs.delete(client);
      pairs.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => {
      down = true;
      for (const s of pairs) s.destroy();
    },
    restore: () => { down = false; },
    close: () => new Promise((resolve) => {
      for (const s of pairs) s.destroy();
      server.close(() => resolve());
    }),
  };
}
