import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'tlcts/test/**/*.test.ts',
      'spec/**/*.test.ts',
      'impl/**/*.test.ts',
      'harness/**/*.test.ts',
      'conformance/**/*.test.ts',
      'gpu-worker/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
