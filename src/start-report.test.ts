// What the server prints when it starts: a banner on a terminal (through pino-pretty), JSON records
// otherwise, and the warning about an EDGEPLANE_API_KEY the database does not know.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, prettyLogs } from './platform/logging.js';
import { announceStart, banner, type StartReport } from './start-report.js';

const report: StartReport = {
  url: 'http://127.0.0.1:8080',
  database: 'sqlite /work/.edgeplane/edgeplane.sqlite',
  taskMode: 'instant',
  demo: { clientId: 1, token: '1_secret' },
  demoFromApiKey: false,
  operatorToken: 'op_secret',
};

/** Logs the start through the logger the server would make for this output, and returns what was written. */
async function logged(startReport: StartReport, output: { isTTY: boolean }, logFormat: 'auto' | 'json' | 'pretty' = 'auto'): Promise<string> {
  let text = '';
  const sink = { isTTY: output.isTTY, write: (chunk: string) => (text += chunk) };
  const options = await loggerOptions({ logFormat, logLevel: 'info' }, sink);
  const logger = pino({ level: options.level }, options.stream ?? { write: (line: string) => sink.write(line) });
  announceStart(logger, startReport, prettyLogs({ logFormat }, sink));
  return text;
}

describe('start report', () => {
  it('is one readable block on a terminal: URL, reference, database, tokens and a first call', async () => {
    const text = await logged(report, { isTTY: true });
    expect(text).toContain('Edgeplane');
    expect(text).toContain('is ready at http://127.0.0.1:8080');
    expect(text).toMatch(/API reference +http:\/\/127\.0\.0\.1:8080\/docs/);
    expect(text).toMatch(/console +http:\/\/127\.0\.0\.1:8080\/console/);
    expect(text).toMatch(/database +sqlite \/work\/\.edgeplane\/edgeplane\.sqlite/);
    expect(text).toMatch(/demo account +client 1, API token 1_secret {2}\(shown once\)/);
    expect(text).toMatch(/operator token +op_secret/);
    expect(text).toContain("curl -H 'Authorization: APIKey 1_secret' http://127.0.0.1:8080/iam/clients/me");
    expect(text).not.toContain('"level"');
  });

  it('is JSON records elsewhere (a pipe, a file, CI), with the fields a script picks up', async () => {
    const records = (await logged(report, { isTTY: false }))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.msg)).toEqual([
      'demo account 1 created; its API token (shown once): 1_secret',
      'operator token for /_edgeplane (shown once): op_secret',
      'edgeplane listening on http://127.0.0.1:8080 (sqlite /work/.edgeplane/edgeplane.sqlite)',
    ]);
    expect(records[2]).toMatchObject({ level: 30, url: 'http://127.0.0.1:8080', docs: 'http://127.0.0.1:8080/docs' });
    // --log-format forces either way.
    expect(await logged(report, { isTTY: true }, 'json')).toMatch(/^\{"level":40/);
    expect(await logged(report, { isTTY: false }, 'pretty')).toContain('is ready at http://127.0.0.1:8080');
  });

  it('warns, in both forms, when EDGEPLANE_API_KEY is not a token of the database, and says how to apply it', async () => {
    const ignored: StartReport = { ...report, demo: undefined, operatorToken: undefined, apiKey: { kind: 'ignored', problem: 'Invalid API token.' } };
    for (const isTTY of [true, false]) {
      const text = await logged(ignored, { isTTY });
      expect(text).toContain('EDGEPLANE_API_KEY is ignored: it is not a token of this database');
      expect(text).toContain('--apply-api-key (EDGEPLANE_APPLY_API_KEY=true)');
    }
    expect(banner({ ...report, demo: undefined, apiKey: { kind: 'applied', clientId: 1 } })).toMatch(
      /API key +EDGEPLANE_API_KEY added to the demo account \(client 1\)/,
    );
  });

  it('never shows a token that came from EDGEPLANE_API_KEY', () => {
    const text = banner({ ...report, demoFromApiKey: true, operatorToken: undefined });
    expect(text).toMatch(/demo account +client 1, API token from EDGEPLANE_API_KEY/);
    expect(text).not.toContain('1_secret');
  });
});
