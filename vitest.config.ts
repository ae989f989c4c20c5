import { configDefaults, defineConfig } from 'vitest/config';

/** Files that replace a module of the service with vi.mock: they get a module registry of their own. */
const MOCKING_FILES = ['test/resilience/taken-codes.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every file builds its own databases and apps, so files run in parallel safely.
    fileParallelism: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MOCKING_FILES],
          // The files of one worker share its imported modules: importing the service anew for each
          // file was about 40% of the suite's CPU time. What a module keeps is per process, as in
          // production; a test must not depend on being the first in its process.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING_FILES, isolate: true } },
    ],
  },
});
