// The rigplan page: fills the form from the API, then asks /api/recommend and /api/compare and
// shows their answers with the charts of the matching /report/ pages. No library, nothing fetched
// from outside this server.
"use strict";

const $ = (id) => document.getElementById(id);

// GET an endpoint; resolves to the body (JSON or text), rejects with the server's message.
async function get(path, params, as = "json") {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(query ? `${path}?${query}` : path);
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return as === "json" ? response.json() : response.text();
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
}

function fill(select, items, label) {
  for (const item of items) {
    const option = document.createElement("option");
    option.value = item.id;
    option.textContent = label(item);
    select.appendChild(option);
  }
}

// The charts of a report page, moved into `target`.
async function showCharts(path, params, target) {
  const html = await get(path, params, "text");
  const page = new DOMParser().parseFromString(html, "text/html");
  target.replaceChildren(...page.querySelectorAll("figure"));
}

function requestParams() {
  const params = {};
  for (const id of ["preset", "workload", "budget", "region", "utilisation", "horizon-months", "acquire", "have"]) {
    const value = $(id).value.trim();
    if (value) params[id] = value;
  }
  const size = $("size").value.trim();
  if (size) params[$("size-kind").value] = size;
  return params;
}

function what(o) {
  const name = `${o.count} x ${o.gpu}`;
  if (o.kind === "keep") return `keep ${name} (what you have)`;
  return o.kind === "own" ? `own ${name} (${o.condition})` : `rent ${name} (${o.pricing})`;
}

function showRecommendation(r) {
  const tbody = $("options").querySelector("tbody");
  tbody.replaceChildren();
  for (const o of r.options) {
    const row = document.createElement("tr");
    if (o.pareto) row.className = "front";
    cell(row, o.rank);
    cell(row, what(o));
    cell(row, o.kind === "own" ? o.system : o.kind === "keep" ? "owned" : `${o.provider} ${o.offer}`);
    cell(row, `${o.throughput} ${o.unit}`);
    cell(row, o.time_to_result_h.toFixed(1));
    cell(row, Math.round(o.total_cost_usd).toLocaleString("en-US"));
    cell(row, Math.round(o.co2_kg).toLocaleString("en-US"));
    cell(row, o.reason);
    tbody.appendChild(row);
  }
  const tasks = r.demand.tasks.map((t) => `${t.workload} (${t.mode}, ${Math.round(t.share * 100)}%)`).join(", ");
  $("summary").textContent = r.options.length
    ? `${r.feasible_count} of ${r.evaluated} options meet every constraint for ${tasks}; the cheapest first.`
    : `Nothing meets every constraint for ${tasks}.`;
  // With GPUs you have: the options are ranked against them, and the verdict says whether to keep them.
  if (r.have) $("summary").textContent += ` ${r.have.verdict}.`;
  fillLines($("relaxations"), "p", r.relaxations);
  fillLines($("assumptions"), "li", r.assumptions);
  $("recommendation").hidden = false;
}

// Replaces the children of `parent` with one `tag` element per line of text.
function fillLines(parent, tag, lines) {
  parent.replaceChildren();
  for (const line of lines) {
    const element = document.createElement(tag);
    element.textContent = line;
    parent.appendChild(element);
  }
}

function showComparison(c) {
  const tbody = $("compare-table").querySelector("tbody");
  tbody.replaceChildren();
  for (const g of c.gpus) {
    const row = document.createElement("tr");
    cell(row, g.name);
    cell(row, g.relative.toFixed(2));
    cell(row, `${g.throughput} ${g.unit}`);
    // The command line's fit_label: a card that cannot hold the batch runs the largest it can.
    cell(row, g.fit);
    cell(row, g.price_usd != null ? g.price_usd.toLocaleString("en-US") : "-");
    cell(row, g.perf_per_kusd_card != null ? g.perf_per_kusd_card.toFixed(3) : "-");
    cell(row, g.memory_gb);
    tbody.appendChild(row);
  }
  $("comparison").hidden = false;
}

async function submit(event) {
  event.preventDefault();
  document.body.dataset.state = "working";
  $("status").textContent = "working…";
  $("error").hidden = true;
  $("go").disabled = true;
  try {
    const params = requestParams();
    const recommendation = await get("/api/recommend", params);
    showRecommendation(recommendation);
    await showCharts("/report/recommend", params, $("charts"));
    const workload = params.workload || recommendation.demand.tasks[0].workload;
    const gpus = $("gpus").value.trim();
    if (gpus) {
      const compareParams = { workload, gpus };
      showComparison(await get("/api/compare", compareParams));
      await showCharts("/report/compare", compareParams, $("compare-charts"));
    } else {
      $("comparison").hidden = true;
    }
    $("status").textContent = "";
    document.body.dataset.state = "done";
  } catch (e) {
    $("error").textContent = e.message;
    $("error").hidden = false;
    $("status").textContent = "";
    document.body.dataset.state = "error";
  } finally {
    $("go").disabled = false;
  }
}

async function start() {
  try {
    const [presets, workloads, regions] = await Promise.all([
      get("/api/presets"), get("/api/workloads"), get("/api/regions")]);
    fill($("preset"), presets, (p) => `${p.id}: ${p.name}`);
    fill($("workload"), workloads, (w) => `${w.id} (${w.task})`);
    fill($("region"), regions, (r) => `${r.id}: ${r.name}`);
    $("request").addEventListener("submit", submit);
    // A preset brings its own job size; a number typed after choosing it replaces that.
    $("preset").addEventListener("change", () => { if ($("preset").value) $("size").value = ""; });
    document.body.dataset.state = "ready";
  } catch (e) {
    $("error").textContent = `Could not load the catalog: ${e.message}`;
    $("error").hidden = false;
    document.body.dataset.state = "error";
  }
}

start();
