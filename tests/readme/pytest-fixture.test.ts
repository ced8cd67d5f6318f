// The README's pytest fixture, run by pytest as written: it starts the built server, waits for it, and
// hands the tests the official client's environment variables. CI has no official client, so the test
// beside the fixture checks those variables with the standard library: the server side and the contract.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, readmeBlock, ROOT, shell } from '../support/built.js';

/** A Python that has pytest: the one on PATH, or the system's (.ci/run installs python3-pytest there when neither has it). */
function pythonWithPytest(): string | undefined {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import pytest'], { stdio: 'ignore' });
      return python;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const CONTRACT_TEST = `
import json
import os
import urllib.request


def call(path):
    request = urllib.request.Request(os.environ["GCORE_BASE_URL"] + path, headers={"Authorization": "APIKey " + os.environ["GCORE_API_KEY"]})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def test_the_client_variables_reach_the_demo_account(edgeplane):
    assert os.environ["GCORE_BASE_URL"] == edgeplane
    assert call("/iam/clients/me")["email"] == "demo@edgeplane.local"


def test_the_cloud_project_and_region_exist():
    project, region = os.environ["GCORE_CLOUD_PROJECT_ID"], os.environ["GCORE_CLOUD_REGION_ID"]
    assert call(f"/cloud/v1/networks/{project}/{region}")["count"] == 0
    assert call(f"/cloud/v1/regions/{region}")["id"] == int(region)
`;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-pytest-'));
const python = pythonWithPytest();
beforeAll(() => assertBuilt());
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('README pytest fixture', () => {
  it.skipIf(!python)('starts Edgeplane for the session and gives the tests GCORE_BASE_URL, GCORE_API_KEY, project and region', async () => {
    fs.writeFileSync(path.join(scratch, 'conftest.py'), readmeBlock('A pytest fixture', 'python', 0));
    fs.writeFileSync(path.join(scratch, 'test_contract.py'), CONTRACT_TEST);
    const pytest = shell(`${python} -m pytest -q -p no:cacheprovider`, { cwd: scratch, env: { EDGEPLANE_HOME: ROOT } });
    const code = await pytest.done;
    expect(code, pytest.output()).toBe(0);
    expect(pytest.output()).toMatch(/2 passed/);
  });
});
