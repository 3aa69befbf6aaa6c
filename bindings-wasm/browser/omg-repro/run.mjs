import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBrowser } from '../engines.mjs';
const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..', '..', '..');
const roots = { '/pkg/': join(repo, 'bindings-wasm', 'pkg'), '/golden/': join(repo, 'golden'), '/browser/': join(repo, 'bindings-wasm', 'browser'), '/tests/': join(repo, 'bindings-wasm', 'tests'), '/': here };
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };
let deliver;
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (req.method === 'POST') { const c = []; req.on('data', (d) => c.push(d)); req.on('end', () => { res.writeHead(204).end(); deliver(JSON.parse(Buffer.concat(c))); }); return; }
  const prefix = Object.keys(roots).find((p) => path.startsWith(p));
  const file = normalize(join(roots[prefix], path.slice(prefix.length) || 'page.html'));
  if (!existsSync(file)) { res.writeHead(404).end(); return; }
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }); res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const env = JSON.parse(process.argv[2] ?? '{"JSC_useBBQJIT":"false"}');
const runs = Number(process.argv[3] ?? 3);
for (let i = 0; i < runs; i++) {
  const profile = mkdtempSync(join(tmpdir(), 'omg-'));
  const b = startBrowser('webkit', { env }, `http://127.0.0.1:${server.address().port}/page.html`, profile);
  const result = await new Promise((r) => { deliver = r; setTimeout(() => r({ error: 'timeout ' + b.log() }), 1200000); });
  await b.stop(); rmSync(profile, { recursive: true, force: true });
  if (result.error) { console.log('run', i, 'error', result.error); continue; }
  console.log('run', i, JSON.stringify(result.rounds));
}
server.close();
