// check.mjs: an independent MCP client for the example server.
//
// It starts the built server over stdio with the official TypeScript SDK,
// lists the tools, compiles every inputSchema and outputSchema with its own
// validator (Ajv, JSON Schema draft 2020-12, the MCP default dialect since
// 2025-11-25), makes successful and failing calls, and checks each answer
// against what Ajv says of the arguments and of the structured result. The
// SDK also validates structuredContent against outputSchema on every
// callTool. Any mismatch exits non-zero.
//
//   npm ci && node check.mjs /path/to/mcpserver
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const serverPath = process.argv[2];
if (!serverPath) {
  console.error('usage: node check.mjs /path/to/mcpserver');
  process.exit(2);
}
const timer = setTimeout(() => {
  console.error('FAIL: timed out after 60s');
  process.exit(3);
}, 60_000);

const failures = [];
let checks = 0;
function check(what, fn) {
  checks++;
  try {
    fn();
  } catch (err) {
    failures.push(`${what}: ${err.message}`);
  }
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);

const transport = new StdioClientTransport({ command: serverPath, args: [], stderr: 'pipe' });
let serverLog = '';
transport.stderr?.on('data', (chunk) => { serverLog += chunk; });
let negotiated;
transport.setProtocolVersion = (v) => { negotiated = v; };
const client = new Client({ name: 'toolreg-node-check', version: '0.1.0' });
await client.connect(transport);
check('protocol version', () => assert.equal(negotiated, '2025-11-25', 'the TypeScript SDK speaks 2025-11-25 at most'));
check('serverInfo', () => assert.equal(client.getServerVersion()?.name, 'toolreg-example'));

// tools/list: names, and every schema compiles under 2020-12 in strict mode.
const { tools } = await client.listTools();
const byName = new Map(tools.map((t) => [t.name, t]));
check('tool names', () => assert.deepEqual([...byName.keys()].sort(), ['calculate', 'convert_units', 'list_units', 'text.stats']));
const validators = new Map();
for (const t of tools) {
  check(`${t.name}: title and description`, () => {
    assert.ok(t.title, 'no title');
    assert.ok(t.description.length > 20, 'description too short');
  });
  check(`${t.name}: annotations`, () => assert.deepEqual(
    { readOnly: t.annotations?.readOnlyHint, idempotent: t.annotations?.idempotentHint, openWorld: t.annotations?.openWorldHint },
    { readOnly: true, idempotent: true, openWorld: false }));
  check(`${t.name}: inputSchema`, () => {
    assert.equal(t.inputSchema.type, 'object');
    assert.equal(t.inputSchema.additionalProperties, false);
    validators.set(t.name, { input: ajv.compile(t.inputSchema) });
  });
  if (t.outputSchema) {
    check(`${t.name}: outputSchema`, () => {
      assert.equal(t.outputSchema.type, 'object', 'MCP 2025-11-25 requires an object root');
      validators.get(t.name).output = ajv.compile(t.outputSchema);
    });
  }
}
check('structured tools', () => assert.deepEqual(
  tools.filter((t) => t.outputSchema).map((t) => t.name).sort(), ['calculate', 'list_units', 'text.stats']));
check('list_units is wrapped', () => assert.deepEqual(byName.get('list_units').outputSchema.required, ['result']));

// tools/call. expect: 'ok' (valid arguments, a result), 'invalid' (Ajv and
// the server both refuse the arguments), 'error' (valid arguments, the tool
// fails).
const calls = [
  { tool: 'calculate', args: { operation: 'add', a: 2, b: 3 }, expect: 'ok', structured: { expression: '2 + 3', value: 5 } },
  { tool: 'calculate', args: { operation: 'power', a: 2, b: 10 }, expect: 'ok', structured: { expression: '2 ^ 10', value: 1024 } },
  { tool: 'calculate', args: { operation: 'divide', a: 1, b: 0 }, expect: 'error', text: /divide by zero/ },
  { tool: 'calculate', args: { operation: 'modulo', a: 7, b: 2 }, expect: 'invalid', text: /operation/ },
  { tool: 'calculate', args: { operation: 'add', a: '2', b: 3 }, expect: 'invalid', text: /\ba\b/ },
  { tool: 'calculate', args: { operation: 'add', a: 2 }, expect: 'invalid', text: /\bb\b/ },
  { tool: 'convert_units', args: { value: 10, from: 'km', to: 'mi' }, expect: 'ok', text: /^10 km = 6\.2137 mi$/ },
  { tool: 'convert_units', args: { value: 100, from: 'C', to: 'F', precision: 1 }, expect: 'ok', text: /^100 C = 212\.0 F$/ },
  { tool: 'convert_units', args: { value: 1, from: 'km', to: 'kg' }, expect: 'error', text: /same kind/ },
  { tool: 'convert_units', args: { value: -300, from: 'C', to: 'K' }, expect: 'error', text: /absolute zero/ },
  { tool: 'convert_units', args: { value: 1, from: 'km', to: 'mi', precision: 11 }, expect: 'invalid', text: /precision/ },
  { tool: 'convert_units', args: { value: 1e13, from: 'km', to: 'mi' }, expect: 'invalid', text: /value/ },
  { tool: 'convert_units', args: { value: 1, from: 'km', to: 'mi', extra: true }, expect: 'invalid', text: /extra/ },
  { tool: 'list_units', args: { kind: 'mass' }, expect: 'ok', structured: { result: [
    { symbol: 'kg', name: 'kilogram', kind: 'mass' }, { symbol: 'g', name: 'gram', kind: 'mass' },
    { symbol: 'lb', name: 'pound', kind: 'mass' }, { symbol: 'oz', name: 'ounce', kind: 'mass' }] } },
  { tool: 'list_units', args: {}, expect: 'ok' },
  { tool: 'list_units', args: { kind: 'volume' }, expect: 'invalid', text: /kind/ },
  { tool: 'text.stats', args: { text: 'The cat sat. The dog ran!\nBye', top: 2 }, expect: 'ok', structured: {
    characters: 29, words: 7, lines: 2, sentences: 3, reading_seconds: 2,
    top_words: [{ word: 'the', count: 2 }, { word: 'bye', count: 1 }] } },
  { tool: 'text.stats', args: { text: '' }, expect: 'invalid', text: /text/ },
  { tool: 'text.stats', args: { text: 'hi', top: 0 }, expect: 'invalid', text: /top/ },
];

for (const c of calls) {
  const what = `${c.tool} ${JSON.stringify(c.args)}`;
  const v = validators.get(c.tool);
  const valid = v.input(c.args);
  check(`${what}: Ajv's verdict on the arguments`, () => assert.equal(valid, c.expect !== 'invalid', ajv.errorsText(v.input.errors)));
  let res;
  try {
    res = await client.callTool({ name: c.tool, arguments: c.args }); // validates structuredContent itself
  } catch (err) {
    check(what, () => assert.fail(`callTool threw: ${err.message}`));
    continue;
  }
  check(`${what}: isError`, () => assert.equal(res.isError ?? false, c.expect !== 'ok', JSON.stringify(res)));
  check(`${what}: one text block`, () => {
    assert.equal(res.content.length, 1);
    assert.equal(res.content[0].type, 'text');
  });
  const text = res.content[0]?.text ?? '';
  if (c.expect === 'invalid') {
    check(`${what}: toolreg's message`, () => assert.match(text, new RegExp(`^invalid arguments for tool "${c.tool.replace('.', '_')}":\\n- `)));
  }
  if (c.text) {
    check(`${what}: text`, () => assert.match(text, c.text));
  }
  if (c.expect !== 'ok') {
    check(`${what}: no structuredContent on errors`, () => assert.equal(res.structuredContent, undefined));
    continue;
  }
  if (!v.output) {
    check(`${what}: no structuredContent for a text tool`, () => assert.equal(res.structuredContent, undefined));
    continue;
  }
  check(`${what}: structuredContent conforms (Ajv)`, () => assert.ok(v.output(res.structuredContent), ajv.errorsText(v.output.errors)));
  check(`${what}: the text block is the JSON of the result`, () => {
    const wrapped = byName.get(c.tool).outputSchema.required?.[0] === 'result' && Object.keys(res.structuredContent).length === 1;
    assert.deepEqual(JSON.parse(text), wrapped ? res.structuredContent.result : res.structuredContent);
  });
  if (c.structured) {
    check(`${what}: structuredContent`, () => assert.deepEqual(res.structuredContent, c.structured));
  }
}

// An unknown tool is a protocol error, -32602.
try {
  const res = await client.callTool({ name: 'text_stats', arguments: { text: 'hi' } });
  check('unknown tool', () => assert.fail(`got a result: ${JSON.stringify(res)}`));
} catch (err) {
  check('unknown tool', () => {
    assert.ok(err instanceof McpError, `not an McpError: ${err}`);
    assert.equal(err.code, ErrorCode.InvalidParams);
  });
}

await client.close();
clearTimeout(timer);
if (failures.length > 0) {
  console.error(`FAIL: ${failures.length} of ${checks} checks\n- ${failures.join('\n- ')}`);
  if (serverLog) console.error(`server stderr:\n${serverLog}`);
  process.exit(1);
}
console.log(`ok: ${checks} checks, ${tools.length} tools, ${calls.length + 1} calls, protocol ${negotiated}`);
