/** The Evaluations view's styles (appended to `style.ts`'s by `page.ts`). */
export const EVALS_STYLE = `
main[data-view="evals"] { grid-template-columns: minmax(420px, 40%) 1fr; }
#eval-list td.op { max-width: 170px; white-space: normal; }
#eval-list td { vertical-align: top; }
main[data-view="traces"] #evals, main[data-view="traces"] #eval,
main[data-view="threads"] #evals, main[data-view="threads"] #eval { display: none; }
main[data-view="evals"] #traces, main[data-view="evals"] #trace,
main[data-view="evals"] #threads, main[data-view="evals"] #thread { display: none; }
#evals { border-right: 1px solid var(--line); background: var(--panel); }
#eval { padding: 12px 16px; }
.chips { display: flex; flex-wrap: wrap; gap: 4px; white-space: normal; }
.chip { background: #f1f3f5; border-radius: 10px; padding: 0 7px; font-size: 12px; white-space: nowrap; }
.chip b { font-weight: 500; color: var(--muted); }
td.chips { max-width: 260px; }
#eval-list tr.compared { background: #fff9db; }
.eval-head { margin-bottom: 10px; }
.eval-head .chips { margin: 6px 0; }
.eval-tools { display: flex; gap: 8px; align-items: center; margin-top: 6px; }
.eval-tools select, .eval-tools button { font: inherit; padding: 2px 6px; }
#eval-rows td.inputs, #eval-rows td.output, #compare-rows td.inputs { max-width: 260px; overflow: hidden; text-overflow: ellipsis; }
td.output.failed { color: var(--err); }
td.score { text-align: center; font-variant-numeric: tabular-nums; }
td.score.good { color: var(--ok); } td.score.bad { color: var(--err); font-weight: 600; }
#compare-summary { margin-bottom: 10px; width: auto; }
tr.regressed td.delta, tr.regressed > td:first-child { color: var(--err); }
tr.improved td.delta { color: var(--ok); }
#compare-rows tr.regressed { background: #fff5f5; } #compare-rows tr.improved { background: #ebfbee; }
#compare-rows tr.unmatched { color: var(--muted); }
#compare-count { margin: 6px 0; }
`;
