// `GET /api/v1/docs`: a readable reference of the OpenAPI document, rendered once into one static HTML page that
// fetches nothing from anywhere (its Content-Security-Policy says so too).

interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  description?: string;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

interface OperationObject {
  summary?: string;
  operationId?: string;
  'x-required-scope'?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: SchemaObject }>;
  requestBody?: { content: Record<string, { schema: SchemaObject }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: SchemaObject }> }>;
}

export interface DocumentLike {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, SchemaObject> };
}

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const anchor = (name: string) => `schema-${name}`;

/** A schema in a few words: a link to a named one, a type with its bounds, an enum's values. */
function typeOf(s: SchemaObject | undefined): string {
  if (!s) return '';
  if (s.$ref) {
    const name = s.$ref.split('/').pop()!;
    return `<a href="#${anchor(name)}">${escape(name)}</a>`;
  }
  if (s.anyOf ?? s.oneOf) return (s.anyOf ?? s.oneOf)!.map(typeOf).join(' | ');
  if (s.enum) return s.enum.map((value) => `<code>${escape(JSON.stringify(value))}</code>`).join(' | ');
  if (s.const !== undefined) return `<code>${escape(JSON.stringify(s.const))}</code>`;
  if (s.type === 'array') return `array of ${typeOf(s.items)}`;
  const bounds = [
    s.format,
    s.minimum !== undefined ? `≥ ${s.minimum}` : '',
    s.maximum !== undefined ? `≤ ${s.maximum}` : '',
    s.minLength !== undefined ? `length ≥ ${s.minLength}` : '',
    s.maxLength !== undefined ? `length ≤ ${s.maxLength}` : '',
    s.default !== undefined ? `default ${JSON.stringify(s.default)}` : '',
  ].filter(Boolean);
  const type = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? (s.properties ? 'object' : 'any'));
  return `${escape(type)}${bounds.length ? ` <span class="dim">(${escape(bounds.join(', '))})</span>` : ''}`;
}

function propertiesTable(s: SchemaObject): string {
  if (!s.properties) return `<p>${typeOf(s)}</p>`;
  const rows = Object.entries(s.properties).map(
    ([name, p]) =>
      `<tr><td><code>${escape(name)}</code>${s.required?.includes(name) ? '' : ' <span class="dim">optional</span>'}</td><td>${typeOf(p)}</td><td>${escape(p.description ?? '')}</td></tr>`,
  );
  return `<table><tr><th>field</th><th>type</th><th>about</th></tr>${rows.join('')}</table>`;
}

function operationHtml(method: string, path: string, op: OperationObject): string {
  const parameters = op.parameters ?? [];
  const params = parameters.length
    ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th>about</th></tr>${parameters
        .map((p) => `<tr><td><code>${escape(p.name)}</code>${p.required ? '' : ' <span class="dim">optional</span>'}</td><td>${escape(p.in)}</td><td>${typeOf(p.schema)}</td><td>${escape(p.description ?? '')}</td></tr>`)
        .join('')}</table>`
    : '';
  const body = op.requestBody ? `<h4>Body</h4>${propertiesTable(Object.values(op.requestBody.content)[0]!.schema)}` : '';
  const responses = `<h4>Responses</h4><table><tr><th>status</th><th>about</th><th>body</th></tr>${Object.entries(op.responses)
    .map(([status, r]) => {
      const [type, media] = Object.entries(r.content ?? {})[0] ?? [];
      return `<tr><td>${escape(status)}</td><td>${escape(r.description)}</td><td>${media ? `${typeOf(media.schema)} <span class="dim">${escape(type!)}</span>` : ''}</td></tr>`;
    })
    .join('')}</table>`;
  const scope = op['x-required-scope'] ? `<span class="scope">${escape(op['x-required-scope'])}</span>` : '<span class="scope">public</span>';
  return `<section class="operation" id="${escape(op.operationId ?? '')}"><h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code> ${scope}</h3>
<p>${escape(op.summary ?? '')} <span class="dim">operationId <code>${escape(op.operationId ?? '')}</code></span></p>${params}${body}${responses}</section>`;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 2rem;color:#1d1d1f}
code{font:13px ui-monospace,monospace}table{border-collapse:collapse;margin:.3rem 0 1rem;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}th{font-weight:600}
.operation{border-top:2px solid #eee;padding-top:.5rem}.dim{color:#777;font-size:13px}
.method{border-radius:4px;color:#fff;font:600 12px ui-monospace,monospace;padding:2px 6px}
.get{background:#1f7a3a}.post{background:#1d5fbf}.put{background:#8a5a00}.delete{background:#b3261e}
.scope{background:#eee;border-radius:4px;font-size:12px;padding:2px 6px}nav a{margin-right:.6rem}`;

/** The whole page, from the document. */
export function docsPage(document: DocumentLike): string {
  const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
  const nav = operations.map(({ op }) => `<a href="#${escape(op.operationId ?? '')}">${escape(op.operationId ?? '')}</a>`).join(' ');
  const schemas = Object.entries(document.components.schemas)
    .map(([name, s]) => `<section class="schema" id="${anchor(name)}"><h3>${escape(name)}</h3>${s.description ? `<p>${escape(s.description)}</p>` : ''}${propertiesTable(s)}</section>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(document.info.title)} API ${escape(document.info.version)}</title><style>${STYLE}</style></head><body>
<h1>${escape(document.info.title)} API <span class="dim">${escape(document.info.version)}</span></h1>
<p>${escape(document.info.description ?? '')} The machine-readable document is <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>. Authenticate with <code>Authorization: Bearer sk_live_…</code>; each operation names the scope it needs.</p>
<nav>${nav}</nav>
<h2>Operations</h2>
${operations.map(({ path, method, op }) => operationHtml(method, path, op)).join('\n')}
<h2>Schemas</h2>
${schemas}
</body></html>`;
}
