import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeEvaluationReport } from './evaluation-report.js';

const bench = path.resolve(import.meta.dirname, '../../bench');

describe('the evaluation report', () => {
  it("renders the committed benchmark results: each protocol's row, the scale levels, the knee's steps, the floor, five SVG plots", async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-report-'));
    try {
      const files = await writeEvaluationReport(bench, out);
      const md = fs.readFileSync(path.join(out, 'evaluation.md'), 'utf8');
      const ownership = JSON.parse(fs.readFileSync(path.join(bench, 'ownership.json'), 'utf8'));
      for (const protocol of Object.keys(ownership.protocols)) expect(md).toContain(`| ${protocol} |`);
      const scale = JSON.parse(fs.readFileSync(path.join(bench, 'scale.json'), 'utf8'));
      for (const level of scale.levels) expect(md).toContain(`| ${level.sessions.toLocaleString('en-US')} |`);
      const knee = JSON.parse(fs.readFileSync(path.join(bench, 'knee.json'), 'utf8'));
      expect(md).toContain('## Throughput: the knee and overload');
      for (const step of knee.steps)
        expect(md).toContain(`| ${step.ingress} | ${step.offeredPerS.toLocaleString('en-US')} |`);
      const floor = JSON.parse(fs.readFileSync(path.join(bench, 'floor.json'), 'utf8'));
      expect(md).toContain(
        `${floor.byStage.store.runsWithinTarget} of ${floor.runs.length / 2} runs within ${floor.targetP99Ms} ms`,
      );
      const svgs = files.filter((f) => f.endsWith('.svg'));
      expect(svgs.map((f) => path.basename(f)).sort()).toEqual([
        'cost-of-safety.svg',
        'knee.svg',
        'latency-cdf.svg',
        'latency-vs-sessions.svg',
        'memory-vs-sessions.svg',
      ]);
      for (const f of svgs) expect(fs.readFileSync(f, 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>$/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('names the missing file when a benchmark has not been run', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-report-'));
    try {
      await expect(writeEvaluationReport(empty, empty)).rejects.toThrow(/scale\.json is missing/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
