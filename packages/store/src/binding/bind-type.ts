/**
 * The types a `{name:Type}` placeholder may name for the embedded engine's inline binding, parsed
 * from the placeholder's text by a small grammar of their own:
 *
 *   type  := Nullable(type) | LowCardinality(type) | Array(type)
 *          | (U)Int8..256 | Float32 | Float64 | Bool | String | FixedString(N) | UUID
 *          | Date | Date32 | DateTime[('tz')] | DateTime64(P[, 'tz'])
 *
 * Any other text (Decimal, Map, Tuple, Identifier, an alias, odd spelling) gives `undefined`: the
 * statement is then left to the engine's own parameter binding, never guessed at. The canonical
 * text of a parsed type (`typeText`) is what the bound statement names, so what ClickHouse reads
 * is exactly what was validated.
 */
export type BindType =
  /** `wide`: 128 or 256 bits, beyond what an integer literal of the SQL text holds exactly. */
  | { kind: 'int'; name: string; min: bigint; max: bigint; wide: boolean }
  | { kind: 'float'; name: 'Float32' | 'Float64' }
  | { kind: 'bool' }
  | { kind: 'string' }
  | { kind: 'fixed-string'; bytes: number }
  | { kind: 'uuid' }
  | { kind: 'date'; name: 'Date' | 'Date32' }
  | { kind: 'datetime'; timezone: string | undefined }
  | { kind: 'datetime64'; precision: number; timezone: string | undefined }
  | { kind: 'nullable'; inner: BindType }
  | { kind: 'low-cardinality'; inner: BindType }
  | { kind: 'array'; inner: BindType };

const INT_BITS = [8, 16, 32, 64, 128, 256] as const;
const INTEGERS = new Map<string, BindType>();
for (const bits of INT_BITS) {
  const span = 1n << BigInt(bits);
  const wide = bits > 64;
  INTEGERS.set(`UInt${bits}`, { kind: 'int', name: `UInt${bits}`, min: 0n, max: span - 1n, wide });
  INTEGERS.set(`Int${bits}`, {
    kind: 'int',
    name: `Int${bits}`,
    min: -(span / 2n),
    max: span / 2n - 1n,
    wide,
  });
}

const SIMPLE: ReadonlyMap<string, BindType> = new Map<string, BindType>([
  ...INTEGERS,
  ['Float32', { kind: 'float', name: 'Float32' }],
  ['Float64', { kind: 'float', name: 'Float64' }],
  ['Bool', { kind: 'bool' }],
  ['String', { kind: 'string' }],
  ['UUID', { kind: 'uuid' }],
  ['Date', { kind: 'date', name: 'Date' }],
  ['Date32', { kind: 'date', name: 'Date32' }],
  ['DateTime', { kind: 'datetime', timezone: undefined }],
]);

/** IANA zone names (Asia/Kolkata, UTC, Etc/GMT+5): letters, digits and _ / + -. */
const TIMEZONE = /^[A-Za-z][A-Za-z0-9_/+-]{0,63}$/;
const WRAPPERS = { Nullable: 'nullable', LowCardinality: 'low-cardinality', Array: 'array' } as const;
/** Deeper nesting than this is refused (left to the engine): bounds the recursion. */
const MAX_DEPTH = 8;

/** The type named by `text`, or undefined when it is not one this grammar knows. */
export function parseBindType(text: string): BindType | undefined {
  return parseAt(text.trim(), 0);
}

function parseAt(text: string, depth: number): BindType | undefined {
  const simple = SIMPLE.get(text);
  if (simple !== undefined) return simple;
  const call = /^([A-Za-z][A-Za-z0-9]*)\s*\(\s*([\s\S]*?)\s*\)$/.exec(text);
  if (call === null || depth >= MAX_DEPTH) return undefined;
  const [, name, args] = call as unknown as [string, string, string];
  if (name in WRAPPERS) {
    const inner = parseAt(args, depth + 1);
    return inner === undefined ? undefined : { kind: WRAPPERS[name as keyof typeof WRAPPERS], inner };
  }
  if (name === 'FixedString') {
    const bytes = Number(args);
    return /^[1-9][0-9]{0,5}$/.test(args) ? { kind: 'fixed-string', bytes } : undefined;
  }
  if (name === 'DateTime') {
    const tz = quotedTimezone(args);
    return tz === undefined ? undefined : { kind: 'datetime', timezone: tz };
  }
  if (name === 'DateTime64') {
    const parts = /^([0-9])\s*(?:,\s*(.+))?$/.exec(args);
    if (parts === null) return undefined;
    const tz = parts[2] === undefined ? undefined : quotedTimezone(parts[2]);
    if (parts[2] !== undefined && tz === undefined) return undefined;
    return { kind: 'datetime64', precision: Number(parts[1]), timezone: tz };
  }
  return undefined;
}

function quotedTimezone(text: string): string | undefined {
  const match = /^'([^'\\]*)'$/.exec(text.trim());
  return match && TIMEZONE.test(match[1] as string) ? match[1] : undefined;
}

/** The canonical ClickHouse text of a parsed type. */
export function typeText(type: BindType): string {
  switch (type.kind) {
    case 'int':
      return type.name;
    case 'float':
      return type.name;
    case 'bool':
      return 'Bool';
    case 'string':
      return 'String';
    case 'fixed-string':
      return `FixedString(${type.bytes})`;
    case 'uuid':
      return 'UUID';
    case 'date':
      return type.name;
    case 'datetime':
      return type.timezone === undefined ? 'DateTime' : `DateTime('${type.timezone}')`;
    case 'datetime64':
      return type.timezone === undefined
        ? `DateTime64(${type.precision})`
        : `DateTime64(${type.precision}, '${type.timezone}')`;
    case 'nullable':
      return `Nullable(${typeText(type.inner)})`;
    case 'low-cardinality':
      return `LowCardinality(${typeText(type.inner)})`;
    case 'array':
      return `Array(${typeText(type.inner)})`;
  }
}
