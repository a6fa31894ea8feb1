/**
 * The bare-HTTP baseline: a plain node:http handler that runs one SQL statement on a
 * workspace file with @libsql/client and answers its rows as JSON, with nothing else (no
 * GraphQL, no auth, no ranking). The benchmark starts it as a child process, as it starts
 * the server, so that both answer over the same kind of socket from their own process.
 *
 *   node bench/perf/bare-http.mjs <database file>   # prints "listening <port>"
 */
import { createServer } from 'node:http';
import { createClient } from '@libsql/client';

const client = createClient({ url: `file:${process.argv[2]}`, intMode: 'number' });
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const { sql, args } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const result = await client.execute({ sql, args });
      const body = JSON.stringify(result.rows.map((r) => Array.from(r)));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  client.close();
});
