/**
 * The fan-out baseline: a bare `ws` WebSocketServer that, when its parent asks over IPC,
 * sends one text message of the asked size to every connected socket. The message is shaped
 * like a graphql-ws `next` message so that clients parse it the same way.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

const http = createServer();
const wss = new WebSocketServer({ server: http, perMessageDeflate: false });

function payload(bytes: number): string {
  const empty = JSON.stringify({ id: '1', type: 'next', payload: { data: { pad: '' } } });
  return JSON.stringify({
    id: '1',
    type: 'next',
    payload: { data: { pad: 'x'.repeat(Math.max(0, bytes - empty.length)) } },
  });
}

process.on('message', (m: { bytes?: number; stop?: boolean }) => {
  if (m.stop) {
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    http.close(() => process.exit(0));
    return;
  }
  const text = payload(m.bytes ?? 200);
  for (const ws of wss.clients) ws.send(text);
});

http.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (http.address() as AddressInfo).port });
});
