// The hostile mix, from a process of its own:
// `node hostile-client.mjs <graphql url> <workspace> <concurrency> [<workspace of 10,016 tags>]`.
// Sends, round after round until SIGTERM, documents that held the server's loop for seconds:
// a 120-deep chain of fragments (with and without a valid token), a body nested 400,000
// deep, 30 aliases of recent(n: 200) { content } and of recent(n: 200) { id } (which read
// every text without showing it), 30 aliases of brief (five full scans each, on the
// statement threads every workspace shares), a cost hidden in variable defaults,
// 30 aliases of recall(topK: 50, hops: 3), a document estimated within bounds whose
// reads pass the response cap; with a workspace of tags, 30 aliases of tags(first: 10000)
// too (a 9 MB answer). Prints what it was answered, by code, as one JSON line on exit.
const [url, workspace, concurrencyArg, tagsWorkspace] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 4);
let chains = 0;

function chain(depth) {
  const f = `H${process.pid}_${++chains}_`;
  let doc = `query Chain { ...${f}0 }\n`;
  for (let i = 0; i < depth; i++) doc += `fragment ${f}${i} on Query { ...${f}${i + 1} ...${f}${i + 1} }\n`;
  return `${doc}fragment ${f}${depth} on Query { count }\n`;
}

const aliases = (n, field) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
const deep = 400_000;

const ATTACKS = [
  { name: 'fragment chain, bad token', body: () => ({ query: chain(120) }), token: 'ms_bad_token' },
  { name: 'fragment chain', body: () => ({ query: chain(120) }) },
  {
    name: 'nested variables',
    raw: () => `{"query":"{ count }","variables":{"x":${'['.repeat(deep)}${']'.repeat(deep)}}}`,
  },
  { name: '30 x recent(n: 200) { content }', body: () => ({ query: aliases(30, 'recent(n: 200) { content }') }) },
  { name: '12 x recent(n: 200) { content }', body: () => ({ query: aliases(12, 'recent(n: 200) { content }') }) },
  { name: '30 x recent(n: 200) { id }', body: () => ({ query: aliases(30, 'recent(n: 200) { id }') }) },
  { name: '30 x brief', body: () => ({ query: aliases(30, 'brief { text topTags { tag count } }') }) },
  {
    name: 'cost in variable defaults',
    body: () => ({
      query:
        'query($n: Int = 200, $f: Int = 200) { recent(n: $n) { connections(first: $f) { entry { connections(first: $f) { entry { id } } } } } }',
    }),
  },
  {
    name: '30 x recall(topK: 50, hops: 3)',
    body: () => ({ query: aliases(30, 'recall(query: "lorem ipsum", topK: 50, hops: 3) { hits { snippet } }') }),
  },
  ...(tagsWorkspace
    ? [
        {
          name: '30 x tags(first: 10000)',
          body: () => ({ query: aliases(30, 'tags(first: 10000) { tag count }') }),
          workspace: tagsWorkspace,
        },
      ]
    : []),
];

const answered = {};
let running = true;
process.on('SIGTERM', () => {
  running = false;
});

async function send(attack) {
  const headers = { 'content-type': 'application/json', 'x-workspace': attack.workspace ?? workspace };
  if (attack.token) headers.authorization = `Bearer ${attack.token}`;
  const body = attack.raw ? attack.raw() : JSON.stringify(attack.body());
  let code;
  try {
    const res = await fetch(url, { method: 'POST', headers, body });
    const text = await res.text();
    code = `${res.status} ${/"code":"([A-Z_]+)"/.exec(text)?.[1] ?? 'OK'}`;
  } catch (error) {
    code = `failed ${error.cause?.code ?? error.message}`;
  }
  const counts = answered[attack.name] ?? {};
  counts[code] = (counts[code] ?? 0) + 1;
  answered[attack.name] = counts;
}

async function worker(offset) {
  for (let i = offset; running; i++) await send(ATTACKS[i % ATTACKS.length]);
}

await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
process.stdout.write(`${JSON.stringify(answered)}\n`);
