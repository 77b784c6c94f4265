/**
 * The assembly claims runner, behind the suite's fixed-seed test and `npm run bench -- assembly-claims-fuzz`:
 * posts each generated body (assembly-requests.ts) to POST /v1/assemble and holds every file of the answer
 * (the PDF, or each PDF of a split's zip) to what `X-Render-Claims` says: each file's XMP claims exactly
 * those profiles, a declared one, and veraPDF passes it (claims-checker.ts, one JVM per flavour per batch,
 * alongside the requests). A body written out is the request to replay.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipEntries } from '../../../src/client/zip-entries.js';
import type { AssemblyCase } from './assembly-requests.js';
import { runChecker } from './claims-checker.js';
import { type ClaimTally, claimsOf, FLAVOUR, type RunnerOptions } from './claims-runner.js';
import type { AssembleAnswer } from './claims-service.js';

/** A claim an answer made that does not hold: veraPDF's failed rules, or what else is wrong with it. */
export interface FalseAssemblyClaim {
  request: string;
  file: string;
  profile: string;
  rules: string[];
  constructs: string[];
  /** Where the request's body was written (when the run has an `outDir`). */
  body?: string;
}

/** A run's figures: requests, files answered (a split's each), claims made and checked by profile. */
export interface AssemblyClaimsSummary extends ClaimTally {
  requests: number;
  files: number;
  falseClaims: FalseAssemblyClaim[];
  /** Requests not answered 200: a refusal names its field (a 400 for a page selection past a part's end). */
  refused: Array<{ request: string; status: number; body: string }>;
  ms: number;
}

/** How to run: the assemble call, and the rest as for rendered documents. */
export interface AssemblyClaimsOptions extends RunnerOptions {
  assemble(body: unknown): Promise<AssembleAnswer>;
}

/** The PDFs an answer holds, by name: the one PDF, or a split's files. */
function filesOf(answer: AssembleAnswer): Array<{ name: string; pdf: Buffer }> {
  if (answer.body.subarray(0, 4).toString('latin1') === 'PK\x03\x04') return zipEntries(answer.body);
  return [{ name: 'assembly.pdf', pdf: answer.body }];
}

/** Posts every case and checks every claim of every file; the cases are taken as the requests need them. */
export async function runAssemblyClaims(
  cases: Iterable<AssemblyCase>,
  opts: AssemblyClaimsOptions,
): Promise<AssemblyClaimsSummary> {
  const started = performance.now();
  const summary: AssemblyClaimsSummary = { requests: 0, files: 0, claims: {}, checked: {}, falseClaims: [], refused: [], ms: 0 };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-assembly-claims-'));
  const made = new Map<string, { c: AssemblyCase; file: string; profile: string }>();
  const fail = (c: AssemblyCase, file: string, profile: string, rules: string[]): void => {
    const entry: FalseAssemblyClaim = { request: c.name, file, profile, rules, constructs: c.constructs };
    if (opts.outDir) {
      fs.mkdirSync(opts.outDir, { recursive: true });
      entry.body = path.join(opts.outDir, `${c.name}.json`);
      fs.writeFileSync(entry.body, JSON.stringify(c.body));
    }
    summary.falseClaims.push(entry);
    opts.log?.(`FALSE CLAIM ${profile} in ${c.name} (${file}): ${rules.join(' ')} [${c.constructs.join(', ')}]`);
  };
  const checker = runChecker(dir, opts.batchSize, (flavour, key, rules) => {
    const who = made.get(`${flavour}/${key}`) as { c: AssemblyCase; file: string; profile: string };
    summary.checked[who.profile] = (summary.checked[who.profile] ?? 0) + 1;
    if (rules.length > 0) fail(who.c, who.file, who.profile, [...new Set(rules)]);
  });
  const iterator = cases[Symbol.iterator]();
  const lane = async (): Promise<void> => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      const c = next.value;
      summary.requests += 1;
      const answer = await opts.assemble(c.body);
      if (answer.status !== 200) {
        summary.refused.push({ request: c.name, status: answer.status, body: answer.body.toString('utf8', 0, 300) });
        continue;
      }
      const declared = new Set(
        (c.body.parts as Array<{ html: string }>).flatMap(
          (p) => /name="pdf-profile" content="([^"]*)"/.exec(p.html)?.[1].split(', ') ?? [],
        ),
      );
      for (const [k, { name, pdf }] of filesOf(answer).entries()) {
        summary.files += 1;
        const claimed = claimsOf(pdf);
        if (claimed.join(', ') !== answer.claims.join(', '))
          fail(c, name, claimed.join(', ') || 'none', [`X-Render-Claims says ${answer.claims.join(', ') || 'none'}`]);
        for (const profile of claimed) {
          summary.claims[profile] = (summary.claims[profile] ?? 0) + 1;
          if (!declared.has(profile)) {
            fail(c, name, profile, ['undeclared']);
            continue;
          }
          if (!opts.check) continue;
          const key = `${c.name}-f${k}`;
          made.set(`${FLAVOUR[profile]}/${key}`, { c, file: name, profile });
          checker.add(FLAVOUR[profile] as string, key, pdf);
        }
      }
      if (summary.requests % 50 === 0)
        opts.log?.(
          `${summary.requests} requests, ${summary.files} files, claims ${JSON.stringify(summary.claims)}, ` +
            `${summary.falseClaims.length} false, ${summary.refused.length} refused, ${((performance.now() - started) / 1000).toFixed(0)} s`,
        );
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, lane));
    if (opts.check) await checker.drain();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  summary.ms = performance.now() - started;
  return summary;
}
