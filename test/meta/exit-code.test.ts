// `npm test` exits non-zero when a test fails, on each project (issue 29): the postgres project's run used to exit 0,
// because the package that started its server ended the process with exit code 0 after vitest had set 1. A fixture
// that fails runs through the test command on each project; one that passes exits 0.
import { describe, expect, it } from 'vitest';
import { npmTest } from './test-command.js';

describe('the test command\'s exit code', () => {
  it.each(['sqlite', 'postgres'])('a failing test on the %s project exits non-zero', async (project) => {
    const { code, output } = await npmTest(process.cwd(), 'failing', ['--project', project]);
    expect(output).toMatch(/Tests\s+1 failed/);
    expect(code, output).not.toBe(0);
  });

  it('a passing run on both projects exits 0', async () => {
    const { code, output } = await npmTest(process.cwd(), 'passing');
    expect(output).toMatch(/Tests\s+2 passed/);
    expect(code, output).toBe(0);
  });
});
