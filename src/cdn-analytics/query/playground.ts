// The playground page of GET /cdn/advanced/v2: one self-contained HTML document (inline CSS and JS, no
// external links) so it works offline. It holds no data: the Run button POSTs to the query endpoint
// with the API key typed into the page. The published SDL is embedded as reference, from sdl.ts (printed
// by scripts/analytics-sdl.ts): the page needs neither graphql-js nor the schema built.
import { ANALYTICS_SDL } from './sdl.js';

const EXAMPLE_QUERY = `query TopCountries($from: DateTime!, $to: DateTime!) {
  statistics(from: $from, to: $to, groupBy: [COUNTRY], orderBy: REQUESTS_DESC, limit: 10) {
    totals { requests traffic uniqueVisitors }
    rows { country requests traffic uniqueVisitors }
    rowCount
  }
}`;

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const SCRIPT = `
const $ = (id) => document.getElementById(id);
const endpoint = location.pathname.replace(/\\/+$/, '') + '/query';
$('key').value = sessionStorage.getItem('edgeplane-api-key') || '';
const day = 86400000, now = Date.now();
$('variables').value = JSON.stringify({ from: new Date(now - 7 * day).toISOString(), to: new Date(now).toISOString() }, null, 2);
async function run() {
  const key = $('key').value.trim();
  sessionStorage.setItem('edgeplane-api-key', key);
  let variables = null;
  const text = $('variables').value.trim();
  if (text) {
    try { variables = JSON.parse(text); } catch (e) { $('result').textContent = 'Variables are not valid JSON: ' + e.message; return; }
  }
  $('status').textContent = 'running...';
  try {
    const headers = { 'content-type': 'application/json' };
    if (key) headers.authorization = /^apikey /i.test(key) ? key : 'APIKey ' + key;
    const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ query: $('query').value, variables }) });
    const body = await res.text();
    try { $('result').textContent = JSON.stringify(JSON.parse(body), null, 2); } catch { $('result').textContent = body; }
    $('status').textContent = 'HTTP ' + res.status;
  } catch (e) {
    $('status').textContent = 'request failed';
    $('result').textContent = String(e);
  }
}
$('run').addEventListener('click', run);
document.addEventListener('keydown', (e) => { if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') run(); });
`;

export function playgroundPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Advanced analytics playground</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 1fr 1fr; gap: 12px; padding: 12px; height: 100vh; box-sizing: border-box; }
  h1 { grid-column: 1 / 3; font-size: 18px; margin: 0; }
  .col { display: flex; flex-direction: column; gap: 6px; min-height: 0; }
  textarea, pre { font: 13px ui-monospace, monospace; border: 1px solid #bbb; border-radius: 4px; padding: 6px; margin: 0; }
  #query { flex: 3; } #variables { flex: 1; } #result { flex: 1; overflow: auto; background: #f6f6f6; }
  details pre { max-height: 40vh; overflow: auto; }
  button { padding: 6px 16px; font-weight: bold; }
</style>
</head>
<body>
<h1>Advanced analytics: POST <code>/cdn/advanced/v2/query</code></h1>
<div class="col">
  <label for="key">API key (sent as <code>Authorization: APIKey ...</code>)</label>
  <input id="key" type="password" autocomplete="off" placeholder="your API token">
  <label for="query">Query</label>
  <textarea id="query" spellcheck="false">${escapeHtml(EXAMPLE_QUERY)}</textarea>
  <label for="variables">Variables (JSON)</label>
  <textarea id="variables" spellcheck="false"></textarea>
  <div><button id="run" type="button">Run</button> <span id="status"></span> <small>Ctrl+Enter runs</small></div>
</div>
<div class="col">
  <label for="result">Result</label>
  <pre id="result"></pre>
  <details><summary>Schema (SDL)</summary><pre>${escapeHtml(ANALYTICS_SDL)}</pre></details>
</div>
<script>${SCRIPT}</script>
</body>
</html>`;
}
