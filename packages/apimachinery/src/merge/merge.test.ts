// SMD's merge tables (ported in ./test-cases) run through our Updater.
import { describe, expect, it } from 'vitest';
import * as deduced from './test-cases/deduced.ts';
import * as defaultKeys from './test-cases/default-keys.ts';
import * as duplicates from './test-cases/duplicates.ts';
import * as extractApply from './test-cases/extract-apply.ts';
import * as fieldLevelOverrides from './test-cases/field-level-overrides.ts';
import * as ignore from './test-cases/ignore.ts';
import * as key from './test-cases/key.ts';
import * as leaf from './test-cases/leaf.ts';
import * as multipleAppliers from './test-cases/multiple-appliers.ts';
import * as nested from './test-cases/nested.ts';
import * as preserveUnknown from './test-cases/preserve-unknown.ts';
import * as schemaChange from './test-cases/schema-change.ts';
import * as set from './test-cases/set.ts';
import { runCase, type Table } from './test-support/state.ts';

const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && 'cases' in v;
const VERSIONS = ['v1', 'v2', 'v3'];

function runTable(table: Table): void {
  for (const [name, tc] of Object.entries(table.cases)) {
    it(name, () => {
      if (table.expectError) expect(() => runCase(table, tc)).toThrow();
      else runCase(table, tc);
    });
  }
}

const modules = {
  deduced,
  defaultKeys,
  duplicates,
  extractApply,
  fieldLevelOverrides,
  ignore,
  key,
  leaf,
  multipleAppliers,
  nested,
  preserveUnknown,
  schemaChange,
  set,
};

for (const [file, mod] of Object.entries(modules)) {
  describe(file, () => {
    for (const [name, exported] of Object.entries(mod)) {
      if (isTable(exported)) describe(name, () => runTable(exported));
      else if (typeof exported === 'function') {
        // The tables SMD runs for every combination of three versions.
        describe(name, () => {
          for (const v1 of VERSIONS)
            for (const v2 of VERSIONS)
              for (const v3 of VERSIONS)
                describe(`${v1}-${v2}-${v3}`, () => runTable((exported as (a: string, b: string, c: string) => Table)(v1, v2, v3)));
        });
      }
    }
  });
}
