import { runAuthBench } from './auth.js';

/**
 * `npm run bench [auth|render|render-tuning|render-report-oracle|metadata|metadata-cpu|scale|soak|fuzz|pdf-fuzz|jobs|first-answers|claims-fuzz|assembly-claims-fuzz|assemble|assemble-finishing|factur-x-rules|pdf-engine …]`: runs the chosen sections (all but the long opt-in
 * ones by default), each measured side by side with its baseline in the same run. Medians and ratios; the
 * machine is noisy.
 */
const sections: Record<string, () => Promise<void>> = {
  auth: runAuthBench,
  render: async () => {
    await (await import('./render.js')).runRenderBench();
    await (await import('./render-pages.js')).runRenderPagesBench();
    await (await import('./render-unreachable.js')).runRenderUnreachableBench();
    await (await import('./render-cross-references.js')).runRenderCrossReferencesBench();
    await (await import('./render-browsers.js')).runRenderBrowsersBench();
  },
  'render-cross-references': async () => (await import('./render-cross-references.js')).runRenderCrossReferencesBench(),
  'render-browsers': async () => (await import('./render-browsers.js')).runRenderBrowsersBench(),
  'render-frames': async () => (await import('./render-frames.js')).runRenderFramesBench(),
  'render-tuning': async () => (await import('./render-tuning.js')).runRenderTuningBench(),
  'render-unreachable': async () => (await import('./render-unreachable.js')).runRenderUnreachableBench(),
  'render-report': async () => (await import('./render.js')).runRenderReportBench(),
  // Precision and recall of the report's network entries on the saved pages, against a bare page's requests.
  'render-report-oracle': async () => (await import('./render-report-oracle.js')).runRenderReportOracleBench(),
  metadata: async () => (await import('./metadata.js')).runMetadataBench(),
  'metadata-cpu': async () => (await import('./metadata-cpu.js')).runMetadataCpuBench(),
  scale: async () => (await import('./scale.js')).runScaleBench(),
  jobs: async () => (await import('./jobs.js')).runJobsBench(),
  'jobs-overhead': async () => (await import('./jobs-overhead.js')).runJobsOverheadBench(),
  'jobs-rows': async () => (await import('./jobs-rows.js')).runJobsRowsBench(),
  // A process's first answer of a job route against its later ones (the serializers' one-time work).
  'first-answers': async () => (await import('./first-answers.js')).runFirstAnswersBench(),
  soak: async () => (await import('./soak.js')).runSoakBench(),
  fuzz: async () => (await import('./fuzz.js')).runFuzzBench(),
  'pdf-fuzz': async () => (await import('./pdf-fuzz.js')).runPdfFuzzBench(),
  // What a declared standard costs a render, then what the Factur-X checks (XSD, EN 16931 rules, agreement) add.
  'pdf-profiles': async () => {
    await (await import('./pdf-profiles.js')).runPdfProfilesBench();
    await (await import('./factur-x-rules.js')).runFacturXRulesBench();
  },
  'factur-x-rules': async () => (await import('./factur-x-rules.js')).runFacturXRulesBench(),
  'link-amplification': async () => (await import('./link-amplification.js')).runLinkAmplificationBench(),
  'claims-fuzz': async () => (await import('./claims-fuzz.js')).runClaimsFuzzBench(),
  'assembly-claims-fuzz': async () => (await import('./assembly-claims-fuzz.js')).runAssemblyClaimsFuzzBench(),
  // The assembly's pipeline in one run: assembling and protecting (assemble.ts), signing (sign.ts), then the
  // API's figures (assemble-api.ts: assembled vs rendered one by one, a 1,000-part assembly's memory).
  assemble: async () => {
    await (await import('./assemble.js')).runAssembleBench();
    await (await import('./sign.js')).runSignBench();
    await (await import('./assemble-api.js')).runAssembleApiBench();
  },
  sign: async () => (await import('./sign.js')).runSignBench(),
  // A split against the merge of the same pages, on a tagged document written by hand (no browser).
  'assemble-finishing': async () => (await import('./assemble-finishing.js')).runAssembleFinishingBench(),
  // What the wall around customers' bytes costs a merge: in process vs through the PDF engine's worker.
  'pdf-engine': async () => (await import('./pdf-engine.js')).runPdfEngineBench(),
};
/** Minutes long each (SOAK_S, FUZZ_S, PDF_FUZZ_N, JOBS_BENCH_N, 150-page reports, CLAIMS_FUZZ_N): only when named. */
const OPT_IN = new Set([
  'render-tuning',
  'soak',
  'fuzz',
  'pdf-fuzz',
  'jobs',
  'jobs-overhead',
  'jobs-rows',
  'first-answers',
  'pdf-profiles',
  'claims-fuzz',
  'assembly-claims-fuzz',
  'assemble',
  'assemble-finishing',
  'sign',
  'pdf-engine',
  'metadata-cpu',
  'render-report-oracle',
]);

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const name of chosen) {
  if (!(name in sections)) {
    console.error(`unknown bench section "${name}" (choose from ${Object.keys(sections).join(', ')})`);
    process.exit(2);
  }
}
for (const name of chosen.length ? chosen : Object.keys(sections).filter((s) => !OPT_IN.has(s))) {
  await sections[name]!();
}
process.stdout.write('\nbench done\n');
