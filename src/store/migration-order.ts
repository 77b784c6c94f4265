// The rule for migration names. Kysely applies migrations in name order and refuses to migrate a
// store once a new migration sorts before one the store has applied, so every new migration takes
// the next number: `NNNN_what_it_does`, four digits, one more than the highest. A letter suffix
// (`0007b_job_report`, added after `0009`) only worked because both landed in the same release; it
// keeps its name because stores have recorded it as applied under that name, and renaming it would
// stop every one of them from starting.

/** Names written before the rule, recorded by existing stores: they keep their names. */
const BEFORE_THE_RULE = new Set(['0007b_job_report']);

const NUMBERED = /^(\d{4})_[a-z0-9]+(?:_[a-z0-9]+)*$/;

/** Why these migration names break "next number only", or undefined when they keep it. */
export function migrationNamingProblem(names: readonly string[]): string | undefined {
  let next = 1;
  for (const name of [...names].sort()) {
    if (BEFORE_THE_RULE.has(name)) continue;
    const number = NUMBERED.exec(name)?.[1];
    const expected = String(next).padStart(4, '0');
    if (number === undefined) return `migration ${name}: name it ${expected}_what_it_does (four digits, the next number)`;
    if (number !== expected) return `migration ${name}: its number must be ${expected}, the next one (next number only)`;
    next += 1;
  }
  return undefined;
}

/**
 * Why this code's migrations cannot be applied to a store that has applied `applied`, or undefined:
 * a migration the store has not applied that sorts before the last one it has would never run.
 */
export function migrationOrderProblem(known: readonly string[], applied: readonly string[]): string | undefined {
  const done = new Set(applied);
  const last = [...applied].sort().at(-1);
  if (last === undefined) return undefined;
  const early = known.filter((name) => !done.has(name) && name < last).sort();
  if (early.length === 0) return undefined;
  return (
    `migration ${early.join(', ')} sorts before ${last}, which this store has applied already, so it would never run: ` +
    'a new migration takes the next number (see src/store/migration-order.ts)'
  );
}
