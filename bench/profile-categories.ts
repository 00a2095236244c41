// Where a thread's time goes, in words an operator knows: the self time of a V8 .cpuprofile grouped into
// categories (signatures, JSON, schema, canonicalisation, hashing, base64, CBOR, HTTP, logging, pool
// messaging, GC, idle, start-up, the rest). Issue 14; used by bench/profile-summary.ts. P87.

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export const CATEGORIES = [
  'signatures',
  'JSON parse/stringify',
  'schema (ajv)',
  'canonicalisation',
  'hashing',
  'base64',
  'CBOR',
  'HTTP/socket',
  'logging',
  'pool messaging',
  'GC',
  'idle',
  'start-up (load, compile)',
  'engine, other',
  'service code, other',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

interface Rule {
  readonly category: Category;
  readonly name?: RegExp;
  readonly url?: RegExp;
}

// First match wins, so the narrow rules come before the broad ones (strict-json.ts lives beside the
// canonicaliser; piscina's wait loop is idle, the rest of piscina is messaging).
const RULES: readonly Rule[] = [
  { category: 'idle', name: /^\(idle\)$|^atomicsWait/ },
  { category: 'GC', name: /^\(garbage collector\)$/ },
  // One-time work: modules loaded and compiled, TypeScript stripped (amaro), Ajv and fast-json-stringify
  // compiling their code on first use.
  {
    category: 'start-up (load, compile)',
    name: /^(flushCompileCache|compileSourceTextModule|compileFunctionForCJSLoader|wrapSafe|ModuleWrap|internalModuleStat|compileForInternalLoader)$/,
  },
  {
    category: 'start-up (load, compile)',
    url: /^node:internal\/(modules|bootstrap|deps\/amaro)\/|\/node_modules\/(ajv\/dist\/compile|fast-json-stringify|json-schema-ref-resolver)\//,
  },
  { category: 'logging', name: /^writeString$/ },
  {
    category: 'HTTP/socket',
    name: /^(writev|writeUtf8String|writeLatin1String|writeBuffer|writeAsciiString)$/,
  },
  { category: 'pool messaging', name: /^(postMessage|receiveMessageOnPort|structuredClone)$/ },
  { category: 'base64', name: /base64/i },
  { category: 'schema (ajv)', name: /^validate\d+$|^ucs2length$/ },
  { category: 'JSON parse/stringify', name: /^(parse|stringify)$/, url: /^$/ },
  { category: 'JSON parse/stringify', url: /strict-json|verify-request\.ts|\/secure-json-parse\// },
  { category: 'signatures', name: /^verifyOneShot$/ },
  {
    category: 'signatures',
    url: /^node:internal\/crypto\/(sig|keys)|\/node_modules\/@noble\/(curves|post-quantum)\/|\/packages\/core\/src\/crypto\/(native-backend|noble-backend|ed25519-strict|composite|keys)\.ts/,
  },
  {
    category: 'hashing',
    url: /^node:internal\/crypto\/hash|\/node_modules\/@noble\/hashes\/|\/packages\/core\/src\/hash\//,
  },
  { category: 'canonicalisation', url: /\/packages\/core\/src\/canonical\// },
  { category: 'base64', url: /base64/i },
  { category: 'CBOR', url: /cbor/i },
  { category: 'schema (ajv)', url: /\/node_modules\/(ajv|ajv-formats)\/|\/packages\/core\/src\/schema\// },
  {
    category: 'logging',
    url: /\/node_modules\/(pino|pino-std-serializers|sonic-boom|fast-redact|@pinojs\/redact|thread-stream)\/|\/packages\/service-kit\/src\/(logging|request-log)\.ts/,
  },
  {
    category: 'pool messaging',
    url: /\/node_modules\/piscina\/|^node:internal\/(worker|per_context\/messageport)/,
  },
  {
    category: 'HTTP/socket',
    url: /^node:(_http_|net$|stream$|internal\/(stream_base_commons|streams\/|net|http|deps\/undici))|\/node_modules\/(fastify|find-my-way|light-my-request|avvio|@fastify\/[^/]+|fast-querystring|helmet|undici|content-type|proxy-addr)\//,
  },
];

/**
 * Frames that work for whoever calls them (built-ins without a script, Buffer and TextEncoder, byte
 * helpers, WebAssembly): their self time is the caller's, so the stack is read on upwards.
 */
const PASS_THROUGH =
  /^$|^wasm:\/\/|^node:(buffer|internal\/(buffer|encoding|util|errors|validators|process\/task_queues|async_hooks|timers))$|\/packages\/core\/src\/(encoding\/bytes|crypto\/bytes)\.ts$/;

function ruleFor(frame: CallFrame): Category | undefined {
  for (const rule of RULES) {
    if (rule.name !== undefined && !rule.name.test(frame.functionName)) continue;
    if (rule.url !== undefined && !rule.url.test(frame.url)) continue;
    return rule.category;
  }
  return undefined;
}

/** The code a frame that no rule names belongs to: the engine, the service, or anything else. */
function fallbackFor(frame: CallFrame): Category {
  if (/\/packages\/core\/src\//.test(frame.url)) return 'engine, other';
  if (/\/(services|packages)\/[^/]+\/src\//.test(frame.url)) return 'service code, other';
  return 'other';
}

/**
 * The category of a sample: the first frame from the leaf up that a rule names; a pass-through frame
 * (a built-in, a byte helper) defers to its caller; any other frame decides by whose code it is.
 */
export function categoryOfStack(leafToRoot: readonly CallFrame[]): Category {
  for (const frame of leafToRoot) {
    const named = ruleFor(frame);
    if (named !== undefined) return named;
    if (!PASS_THROUGH.test(frame.url) || frame.functionName === '(program)') return fallbackFor(frame);
  }
  return 'other';
}

export interface ThreadAccount {
  /** Microseconds sampled. */
  readonly totalUs: number;
  readonly byCategory: ReadonlyMap<Category, number>;
  /** Self time per function (`name place:line`, NUL, category), for what the categories leave in "other". */
  readonly byFunction: ReadonlyMap<string, { readonly us: number; readonly category: Category }>;
}

/** Self time of every sample of one thread's profile, by category and by function. */
export function accountProfile(profile: CpuProfile): ThreadAccount {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const categoryOfNode = new Map<number, Category>();
  const categoryOf = (id: number): Category => {
    let category = categoryOfNode.get(id);
    if (category === undefined) {
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
        const node = byId.get(at);
        if (node !== undefined && node.callFrame.functionName !== '(root)') stack.push(node.callFrame);
      }
      category = categoryOfStack(stack);
      categoryOfNode.set(id, category);
    }
    return category;
  };
  const byCategory = new Map<Category, number>();
  const byFunction = new Map<string, { us: number; category: Category }>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const us = profile.timeDeltas[i] ?? 0;
    totalUs += us;
    const category = categoryOf(id);
    byCategory.set(category, (byCategory.get(category) ?? 0) + us);
    // A helper called from two kinds of work is two rows (e.g. TextEncoder for hashing and canonicalising).
    const key = `${functionLabel(node.callFrame)}\u0000${category}`;
    const entry = byFunction.get(key) ?? { us: 0, category };
    entry.us += us;
    byFunction.set(key, entry);
  });
  return { totalUs, byCategory, byFunction };
}

/** `name place:line`, the place shortened to the package or workspace path. */
export function functionLabel({ functionName, url, lineNumber }: CallFrame): string {
  const where = url
    ? `${url.replace(/^.*\/(node_modules|packages|services)\//, '$1/')}:${lineNumber + 1}`
    : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
}

/** Which thread a profile is from: `node --cpu-prof` names files CPU.<date>.<time>.<pid>.<thread id>.<seq>. */
export function threadOfFile(file: string): { pid: string; thread: string } | undefined {
  const match = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(file);
  if (match === null) return undefined;
  return { pid: match[1]!, thread: match[2] === '0' ? 'main' : `worker ${match[2]}` };
}
