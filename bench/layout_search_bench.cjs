// Layout search throughput of training_run in the WebAssembly engine (issue 3's target: ≥ 100k
// layouts/s). Usage: node bench/layout_search_bench.cjs build-wasm/node
const fs=require('fs');
const path=require('path');
const dir=path.resolve(process.argv[2]||'build-wasm/node');
require(dir+'/engine.cjs')({wasmBinary:fs.readFileSync(dir+'/engine.wasm')}).then(m=>{
  for (const [label,p] of [['llama3-70b on 8960 tpu-v5p',{model:'llama3-70b',chip:'tpu-v5p',chips:8960,tokens:15e12}],
                           ['llama3-405b on 16384 h100',{model:'llama3-405b',chip:'h100',chips:16384,tokens:15e12}]]) {
    const s=JSON.stringify(p); let r=JSON.parse(m.evaluate('training_run',s));
    if(r.error){console.log(label,r.error);continue;}
    const n=r.outputs.layouts_evaluated; const t0=performance.now(); let k=0;
    while(performance.now()-t0<1500){m.evaluate('training_run',s);k++;}
    const dt=(performance.now()-t0)/1000;
    console.log(`${label}: ${n} layouts per evaluation, ${(dt/k*1e3).toFixed(2)} ms per evaluation (whole JSON call), ${(n*k/dt/1e3).toFixed(0)}k layouts/s`);
  }
});
