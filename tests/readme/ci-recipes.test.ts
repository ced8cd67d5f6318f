// The README's CI recipes, run as written: the GitHub Actions steps that start, check and stop Edgeplane,
// and the GitLab CI job's before_script and after_script, with the variables they give the tests. Only
// what needs the CI service itself is left out (checking out, `npm ci`: done here already), and the port
// is a free one instead of 8080.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, answers, assertBuilt, freePort, readmeBlock, ROOT, shell, waitUntil } from '../support/built.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-ci-'));
beforeAll(() => assertBuilt());
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A CI workspace: the user's project, with the Edgeplane checkout at ./edgeplane (this repository). */
function workspace(name: string): string {
  const dir = path.join(scratch, name);
  fs.mkdirSync(dir);
  fs.symlinkSync(ROOT, path.join(dir, 'edgeplane'));
  return dir;
}

/** Runs one CI script to its end; its output goes into the failure message. */
async function run(script: string, cwd: string, env: Record<string, string>): Promise<void> {
  const step = shell(script, { cwd, env });
  const code = await step.done;
  expect(code, `${script}\n${step.output()}`).toBe(0);
}

/** What a test step would do with the variables it is given: call the account and the cloud project. */
async function checkTestEnvironment(env: Record<string, string>): Promise<void> {
  const headers = { authorization: `APIKey ${env.GCORE_API_KEY}` };
  const me = await fetch(`${env.GCORE_BASE_URL}/iam/clients/me`, { headers });
  expect(me.status).toBe(200);
  expect((await me.json()).email).toBe('demo@edgeplane.local');
  const networks = await fetch(`${env.GCORE_BASE_URL}/cloud/v1/networks/${env.GCORE_CLOUD_PROJECT_ID}/${env.GCORE_CLOUD_REGION_ID}`, { headers });
  expect(networks.status).toBe(200);
}

const onPort = (text: string, port: number) => text.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
const stringValues = (object: Record<string, unknown> = {}) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, String(v)]));

describe('README CI recipes', () => {
  it('GitHub Actions: starts Edgeplane with npm start, waits for health, hands the tests their variables, stops it', async () => {
    const workflow = parse(readmeBlock('CI: GitHub Actions', 'yaml'));
    const job = workflow.jobs.test;
    const step = (name: string) => job.steps.find((s: { name?: string }) => s.name === name);
    const port = await freePort();
    const dir = workspace('github');
    const githubEnv = path.join(dir, 'github-env');
    fs.writeFileSync(githubEnv, '');
    const env = { ...stringValues(job.env), EDGEPLANE_PORT: String(port), GITHUB_ENV: githubEnv, RUNNER_TEMP: dir };

    const start = step('Start Edgeplane');
    await run(onPort(start.run, port), path.join(dir, start['working-directory']), env);
    const pid = Number(/^EDGEPLANE_PID=(\d+)$/m.exec(fs.readFileSync(githubEnv, 'utf8'))![1]);
    expect(alive(pid)).toBe(true);
    const testEnv = stringValues(step('Test').env);
    await checkTestEnvironment({ ...testEnv, GCORE_BASE_URL: onPort(testEnv.GCORE_BASE_URL, port) });

    const stop = step('Stop Edgeplane');
    expect(stop.if).toBe('always()');
    await run(stop.run, dir, { ...env, EDGEPLANE_PID: String(pid) });
    await waitUntil('npm and the server to exit', async () => !alive(pid) && !(await answers(`http://127.0.0.1:${port}/_edgeplane/health`)), 15_000);
    expect(fs.readFileSync(path.join(dir, 'edgeplane.log'), 'utf8')).toContain('SIGTERM received, draining');
  });

  it('GitLab CI: the same in before_script and after_script, with the job variables', async () => {
    const job = parse(readmeBlock('CI: GitLab CI', 'yaml')).test;
    const port = await freePort();
    const dir = workspace('gitlab');
    const variables = stringValues(job.variables);
    const env = { ...variables, EDGEPLANE_PORT: String(port), CI_PROJECT_DIR: dir };
    // Cloning and installing Edgeplane are what the runner does for real; this checkout is both.
    const before = (job.before_script as string[]).filter((line) => !/git clone|npm (--prefix \S+ )?ci$/.test(line));
    expect(before.length).toBe(job.before_script.length - 2);
    await run(onPort(before.join('\n'), port), dir, env);
    const pid = Number(fs.readFileSync(path.join(dir, 'edgeplane.pid'), 'utf8'));
    expect(alive(pid)).toBe(true);
    await checkTestEnvironment({ ...variables, GCORE_BASE_URL: onPort(variables.GCORE_BASE_URL, port) });

    await run((job.after_script as string[]).join('\n'), dir, env);
    await waitUntil('npm and the server to exit', async () => !alive(pid) && !(await answers(`http://127.0.0.1:${port}/_edgeplane/health`)), 15_000);
    expect(fs.readFileSync(path.join(dir, 'edgeplane.log'), 'utf8')).toContain('SIGTERM received, draining');
  });
});
