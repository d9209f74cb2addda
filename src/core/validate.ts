// Turns valibot issues into one 400 with a readable message and per-field details.
import * as v from 'valibot';
import { invalid, type ErrorDetail } from './errors.js';
import { parseJsonObject, ShapeBreach, type BodyShape } from './json.js';
import { findUnstorableText } from './text.js';
import { ERROR_DETAILS_MAX } from './limits.js';

function describe(issue: v.BaseIssue<unknown>): ErrorDetail {
  const path = v.getDotPath(issue) ?? '';
  // strictObject reports an unknown key as "expected never".
  if (issue.expected === 'never' && issue.type === 'strict_object') {
    return { path, message: 'is not a known field' };
  }
  // An object reports a field left out as an invalid key (`Expected "from" but received undefined`).
  if ((issue.type === 'object' || issue.type === 'strict_object') && issue.received === 'undefined' && issue.input === undefined) {
    return { path, message: 'is required' };
  }
  return { path, message: issue.message };
}

/**
 * Validates a value from outside (query parameters, a header, a CLI argument) against its schema. Text the ledger
 * cannot store (core/text.ts) is refused first, at its path, whatever the schema says of the field.
 */
export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown, what: string, name = ''): v.InferOutput<S> {
  const unstorable = findUnstorableText(input);
  if (unstorable) throw refusal(what, [unstorable], name);
  return validate(schema, input, what, name);
}

function validate<S extends v.GenericSchema>(schema: S, input: unknown, what: string, name = ''): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw refusal(what, result.issues.slice(0, ERROR_DETAILS_MAX).map(describe), name);
}

/**
 * The one 400 of invalid input: the first problem in the message, each in the details. A problem with the whole
 * value (a missing header) is detailed under the value's `name`.
 */
function refusal(what: string, details: ErrorDetail[], name = '') {
  const first = details[0];
  // Stryker disable next-line OptionalChaining: equivalent; a refusal always has a first detail (a failed parse has an issue, a breach is one).
  const where = first?.path ? `${first.path} ` : '';
  const named = details.map((d) => (d.path === '' && name !== '' ? { ...d, path: name } : d));
  // Stryker disable next-line OptionalChaining,StringLiteral: equivalent, as above: the fallback is never used.
  const problem = first?.message ?? 'is invalid';
  return invalid(`Invalid ${what}: ${where}${problem}.`, named);
}

type AnySchema = {
  kind: string;
  type: string;
  message?: unknown;
  requirement?: unknown;
  entries?: Record<string, AnySchema>;
  item?: AnySchema;
  value?: AnySchema;
  options?: AnySchema[];
  wrapped?: AnySchema;
  pipe?: AnySchema[];
};

const SCALAR_TYPES = new Set(['string', 'number', 'boolean', 'literal', 'picklist', 'enum', 'instance', 'bigint', 'null', 'never']);

/** What valibot itself says of an object or an array where the schema wants a value. */
const firstMessage = (schema: AnySchema, input: unknown) =>
  v.safeParse(schema as unknown as v.GenericSchema, input).issues?.[0]?.message ?? `must not be ${Array.isArray(input) ? 'an array' : 'an object'}`;

function scalarShape(schema: AnySchema): BodyShape {
  // Stryker disable next-line ArrayDeclaration: equivalent; a value schema says the same of any object, or of any array.
  return { kind: 'scalar', messages: { object: firstMessage(schema, {}), array: firstMessage(schema, []) } };
}

/** One shape for the options of a variant or union: the fields of all of them, the larger of two limits. */
function merge(a: BodyShape, b: BodyShape): BodyShape {
  if (a.kind === 'scalar' && b.kind === 'scalar') return a;
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = new Map(a.fields);
    for (const [key, shape] of b.fields) fields.set(key, fields.has(key) ? merge(fields.get(key)!, shape) : shape);
    return { kind: 'object', strict: a.strict && b.strict, fields };
  }
  return { kind: 'any' };
}

const limitMessage = (action: AnySchema, fallback: string) => (typeof action.message === 'string' ? action.message : fallback);

function shapeOfSchema(schema: AnySchema): BodyShape {
  let shape: BodyShape;
  const [base, ...actions] = schema.pipe ?? [schema];
  const s = base!;
  if (s !== schema && s.pipe) {
    // A pipe that starts with a piped schema (metadata with a check of its own): that schema's shape, then these actions.
    shape = shapeOfSchema(s);
  } else if (s.type === 'strict_object' || s.type === 'object') {
    const fields = new Map(Object.entries(s.entries ?? {}).map(([key, field]) => [key, shapeOfSchema(field)] as const));
    shape = { kind: 'object', strict: s.type === 'strict_object', fields };
  } else if (s.type === 'array') {
    shape = { kind: 'array', max: Infinity, message: '', item: shapeOfSchema(s.item!) };
  } else if (s.type === 'record') {
    shape = { kind: 'record', max: Infinity, message: '', value: shapeOfSchema(s.value!) };
  } else if (s.type === 'optional' || s.type === 'nullable' || s.type === 'nullish') {
    shape = shapeOfSchema(s.wrapped!);
  } else if (s.type === 'variant' || s.type === 'union') {
    const options = s.options!.map(shapeOfSchema);
    // Values only: valibot's own message for the union as a whole.
    shape = options.every((o) => o.kind === 'scalar') ? scalarShape(s) : options.reduce(merge);
  } else if (SCALAR_TYPES.has(s.type)) {
    shape = scalarShape(schema);
  } else {
    shape = { kind: 'any' };
  }
  for (const action of actions) {
    if (action.kind === 'schema' && shape.kind === 'any') shape = shapeOfSchema(action);
    const bounded = (action.type === 'max_length' && shape.kind === 'array') || (action.type === 'max_entries' && shape.kind === 'record');
    if (bounded && (shape.kind === 'array' || shape.kind === 'record')) {
      shape = { ...shape, max: Number(action.requirement), message: limitMessage(action, `must have at most ${String(action.requirement)} entries`) };
    }
  }
  if (shape.kind === 'object' || shape.kind === 'record' || shape.kind === 'array') {
    // What valibot says of the whole schema given a container of the other kind (a list for a map, a map for a list).
    shape = { ...shape, mismatch: firstMessage(schema, shape.kind === 'array' ? {} : []) };
  }
  return shape;
}

const shapes = new WeakMap<object, BodyShape>();

/**
 * The count limits and the known fields of a body schema, for the parser to enforce while it reads
 * (core/json.ts, BodyShape): the schema stays the one place where a limit is written.
 */
export function shapeOf(schema: v.GenericSchema): BodyShape {
  let shape = shapes.get(schema);
  if (!shape) shapes.set(schema, (shape = shapeOfSchema(schema as unknown as AnySchema)));
  return shape;
}

/**
 * Parses a request body against its schema: count limits and text the ledger cannot store while reading (each
 * refused at its path), then every rule of the schema.
 */
export function parseBodyText<S extends v.GenericSchema>(schema: S, text: string): v.InferOutput<S> {
  let parsed: unknown;
  try {
    parsed = parseJsonObject(text, shapeOf(schema), { storableText: true });
  } catch (error) {
    if (error instanceof ShapeBreach) throw refusal('request body', [error.detail]);
    throw error;
  }
  return validate(schema, parsed, 'request body');
}
