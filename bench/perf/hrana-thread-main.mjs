// The thread of HranaThread (hrana-thread.ts): the Hrana test service, answering the
// benchmark's questions about what it served. Plain JavaScript that registers tsx, since a
// worker does not inherit the TypeScript loader of the thread that started it.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { startHranaServer } = await import('../../test/helpers/hrana-server.ts');
const hrana = await startHranaServer(workerData);
// Each thread's performance.now() counts from its own start: times go out as wall-clock times.
const wall = (t) => t && t + performance.timeOrigin;

parentPort.on('message', async ({ id, op, arg }) => {
  let value;
  if (op === 'latency') hrana.latencyMs = arg;
  else if (op === 'reset') hrana.resetCounts();
  else if (op === 'roundTrips') value = hrana.roundTrips(arg);
  else if (op === 'log') value = hrana.log.map((r) => ({ ...r, at: wall(r.at), answeredAt: wall(r.answeredAt) }));
  else if (op === 'stop') await hrana.stop();
  parentPort.postMessage({ id, value });
});
parentPort.postMessage({ origin: hrana.origin });
