// The status page's script (api/status_page.h): reads the JSON API of the
// daemon that served it and redraws the page every `refresh` seconds
// (?refresh=N, at least 2; by default the daemon's lsf.load_refresh_s, from
// /v1/cluster's load.refresh_s: the data changes no faster). Every string
// from the API is data: it reaches the page only through textContent, title
// and dataset, never as markup.
'use strict';

(() => {
  const kMinRefreshS = 2;
  // Until /v1/cluster has said its interval (the daemon is down or starting).
  const kRetryS = 5;
  // GET /v1/jobs pages (limit=1000 is its maximum); counts beyond them are
  // marked as lower bounds.
  const kJobPageSize = 1000;
  const kJobPages = 5;
  // Job states in the order LSF's bjobs lists them; others follow by name.
  const kJobStates = ['RUN', 'PEND', 'PSUSP', 'USUSP', 'SSUSP', 'UNKWN', 'ZOMBI', 'DONE', 'EXIT'];

  // Host cell states, most urgent first: class, letter (shown in the cell,
  // so colour is never the only sign) and the legend's words.
  const kHostStates = [
    { state: 'sick', letter: '!', label: 'InfiniBand unhealthy' },
    { state: 'down', letter: 'x', label: 'down (unavail, unreach)' },
    { state: 'closed', letter: 'C', label: 'takes no new work (closed_Adm, closed_Lock, ...)' },
    { state: 'full', letter: 'F', label: 'all slots used (closed_Full)' },
    { state: 'busy', letter: 'B', label: 'busy, exclusive or outside its window' },
    { state: 'unknown', letter: '?', label: 'open, InfiniBand unknown' },
    { state: 'ok', letter: '\u00b7', label: 'open, InfiniBand healthy' },
  ];
  const kLetters = new Map(kHostStates.map((s) => [s.state, s.letter]));

  const $ = (id) => document.getElementById(id);

  // A new element with a class and text (both optional); text is set as
  // text, never parsed.
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // The daemon's load interval (s), once /v1/cluster has answered.
  let daemonRefreshS = null;

  function refreshSeconds() {
    const asked = Number(new URLSearchParams(window.location.search).get('refresh'));
    if (Number.isFinite(asked) && asked >= kMinRefreshS) return asked;
    return daemonRefreshS === null ? kRetryS : Math.max(kMinRefreshS, daemonRefreshS);
  }

  // A failed API call: the path, the HTTP status (0: no answer) and the
  // problem's detail.
  class ApiError extends Error {
    constructor(path, status, detail) {
      super(`${path}: ${status ? `HTTP ${status}: ` : ''}${detail}`);
      this.status = status;
    }
  }

  async function getJson(path) {
    let response;
    try {
      response = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    } catch (error) {
      throw new ApiError(path, 0, `bplaced does not answer (${error.message})`);
    }
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      body = null;
    }
    if (!response.ok) {
      const detail = body && typeof body.detail === 'string' ? body.detail : response.statusText;
      throw new ApiError(path, response.status, detail);
    }
    return body;
  }

  function ageText(seconds) {
    if (seconds === null || seconds === undefined) return 'never';
    if (seconds < 120) return `${Math.round(seconds)} s`;
    if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
    return `${Math.round(seconds / 3600)} h`;
  }

  // ---- host map --------------------------------------------------------

  // One host of GET /v1/hosts as a cell state (kHostStates).
  function hostState(host) {
    const ib = host.ib ? host.ib.health : 'unknown';
    if (ib === 'unhealthy') return 'sick';
    if (host.status === 'unavail' || host.status === 'unreach') return 'down';
    if (!host.takes_new_work) return 'closed';
    if (host.status === 'closed_Full') return 'full';
    if (host.status !== 'ok') return 'busy';
    if (ib !== 'healthy') return 'unknown';
    return 'ok';
  }

  // The hosts in sections: each host once, under the smallest host group
  // (GET /v1/hostgroups, expanded members; groups that are "all" skipped)
  // that holds it, ties to the group bmgroup lists first; sections in
  // bmgroup order, then the hosts of no group. Hosts keep bhosts order.
  function groupHosts(hosts, groups) {
    const known = new Set(hosts.map((h) => h.host));
    const candidates = groups
      .filter((g) => !g.all)
      .map((g, order) => ({ group: g, order }))
      .sort((a, b) => a.group.hosts.length - b.group.hosts.length || a.order - b.order);
    const home = new Map();
    for (const { group } of candidates) {
      for (const name of group.hosts) {
        if (known.has(name) && !home.has(name)) home.set(name, group.name);
      }
    }
    const sections = new Map();
    for (const g of groups) if (!g.all) sections.set(g.name, []);
    const ungrouped = [];
    for (const host of hosts) {
      const group = home.get(host.host);
      (group === undefined ? ungrouped : sections.get(group)).push(host);
    }
    const result = [];
    for (const [name, list] of sections) if (list.length) result.push({ name, hosts: list });
    if (ungrouped.length) result.push({ name: null, hosts: ungrouped });
    return result;
  }

  function hostSummary(host) {
    const ib = host.ib ? host.ib.health : 'unknown';
    const reasons = host.ib && host.ib.reasons.length ? ` (${host.ib.reasons.join('; ')})` : '';
    const free = host.free_slots === null ? 'no MAX' : `${host.free_slots} free of ${host.max}`;
    return `${host.host}: ${host.status}, ${free} slots, InfiniBand ${ib}${reasons}`;
  }

  const view = { hosts: new Map(), selected: null };

  function renderLegend() {
    const legend = $('legend');
    for (const { state, letter, label } of kHostStates) {
      const item = el('li');
      item.append(el('span', `h ${state}`, letter), el('span', null, label));
      legend.append(item);
    }
  }

  function renderHosts(hosts, groups) {
    view.hosts = new Map(hosts.map((h) => [h.host, h]));
    const counts = new Map();
    const fragment = document.createDocumentFragment();
    for (const section of groupHosts(hosts, groups)) {
      const box = el('div', 'group');
      const cells = el('div', 'cells');
      let sick = 0;
      for (const host of section.hosts) {
        const state = hostState(host);
        counts.set(state, (counts.get(state) || 0) + 1);
        if (state === 'sick') ++sick;
        const cell = el('span', `h ${state}`, kLetters.get(state));
        cell.dataset.host = host.host;
        cell.title = hostSummary(host);
        if (host.host === view.selected) cell.classList.add('selected');
        cells.append(cell);
      }
      const title = section.name === null ? '(in no host group)' : section.name;
      box.append(el('h3', null, `${title}: ${section.hosts.length}${sick ? `, ${sick} sick` : ''}`));
      box.append(cells);
      fragment.append(box);
    }
    $('hostmap').replaceChildren(fragment);
    const parts = kHostStates.filter((s) => counts.get(s.state)).map((s) => `${counts.get(s.state)} ${s.state}`);
    $('host-counts').textContent = `(${hosts.length}: ${parts.join(', ')})`;
    showHost(view.selected);
  }

  function showHost(name) {
    const host = name === null ? undefined : view.hosts.get(name);
    $('host-detail').textContent = host ? hostSummary(host) : 'Select a host for its details.';
  }

  // One listener for every cell (5,000 hosts, 5,000 cells, no listener each).
  function onMapClick(event) {
    const cell = event.target.closest('.h');
    if (!cell || !cell.dataset.host) return;
    for (const old of $('hostmap').querySelectorAll('.h.selected')) old.classList.remove('selected');
    view.selected = cell.dataset.host;
    cell.classList.add('selected');
    showHost(view.selected);
  }

  // ---- queues ----------------------------------------------------------

  // Free slots under the queue's MAX (MAX minus RUN and SUSP, as the
  // ranking counts them), or null without a MAX.
  function queueFree(queue) {
    return queue.max === null ? null : Math.max(0, queue.max - queue.run - queue.susp);
  }

  // When a one-slot job would start in each queue, in the daemon's words
  // (GET /v1/placement: candidates' expected_start.summary), by queue.
  function expectedStarts(placement) {
    const starts = new Map();
    if (!placement || !Array.isArray(placement.candidates)) return starts;
    for (const c of placement.candidates) {
      if (c.expected_start && c.expected_start.summary) starts.set(c.queue, c.expected_start.summary);
    }
    return starts;
  }

  function renderQueues(queues, starts) {
    const sorted = [...queues].sort((a, b) => b.pend - a.pend || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const fragment = document.createDocumentFragment();
    for (const queue of sorted) {
      const item = el('li', 'queue');
      if (!queue.open) item.classList.add('closed');
      else if (!queue.active) item.classList.add('inactive');
      item.dataset.queue = queue.name;
      item.dataset.pend = String(queue.pend);
      const name = el('span', 'name', queue.name);
      name.title = queue.description || queue.name;
      const bar = el('span', 'bar');
      const free = queueFree(queue);
      for (const [kind, value] of [['pend', queue.pend], ['run', queue.run], ['free', free || 0]]) {
        const part = el('span', kind);
        part.style.flexGrow = String(value);
        bar.append(part);
      }
      bar.title = `${queue.name}: ${queue.pend} pending, ${queue.run} running, ${free === null ? 'no MAX' : `${free} free`}`;
      const nums = el(
        'span',
        'nums',
        `PEND ${queue.pend} \u00b7 RUN ${queue.run} \u00b7 FREE ${free === null ? '- (no MAX)' : free}` +
          `${queue.inflight ? ` \u00b7 in flight ${queue.inflight}` : ''} \u00b7 ${queue.status}` +
          ` \u00b7 hosts ${queue.hosts_usable}/${queue.hosts_admitted} usable` +
          `${starts.has(queue.name) ? ` \u00b7 a 1-slot job: ${starts.get(queue.name)}` : ''}`,
      );
      item.append(name, bar, nums);
      fragment.append(item);
    }
    $('queues').replaceChildren(fragment);
  }

  // ---- jobs ------------------------------------------------------------

  async function loadJobs() {
    const counts = new Map();
    let cursor = '';
    let pages = 0;
    let body;
    do {
      const query = `limit=${kJobPageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      body = await getJson(`/v1/jobs?${query}`);
      for (const job of body.jobs) counts.set(job.status, (counts.get(job.status) || 0) + 1);
      cursor = body.next_cursor;
      ++pages;
    } while (cursor && pages < kJobPages);
    return { counts, more: Boolean(cursor), age_s: body.age_s, error: body.jobs_error };
  }

  function renderJobs(jobs) {
    const list = $('jobs');
    if (jobs instanceof Error) {
      list.replaceChildren();
      // Jobs are their owners' (README "Security"): an anonymous reader sees none.
      $('jobs-note').textContent = jobs.status === 401
        ? 'No job counts: anonymous readers see no jobs (use a token or the Unix socket).'
        : `No job counts: ${jobs.message}`;
      return null;
    }
    const states = [...kJobStates.filter((s) => jobs.counts.has(s)),
      ...[...jobs.counts.keys()].filter((s) => !kJobStates.includes(s)).sort()];
    const fragment = document.createDocumentFragment();
    for (const state of states) {
      const row = el('div');
      row.dataset.status = state;
      row.append(el('dt', null, state), el('dd', null, `${jobs.more ? '\u2265 ' : ''}${jobs.counts.get(state)}`));
      fragment.append(row);
    }
    list.replaceChildren(fragment);
    const total = [...jobs.counts.values()].reduce((a, b) => a + b, 0);
    $('jobs-note').textContent = total === 0
      ? 'No jobs (yours).'
      : `${jobs.more ? `The newest ${total}` : `${total}`} jobs (yours).`;
    return jobs.error ? `jobs refresh: ${jobs.error}` : null;
  }

  // ---- the page --------------------------------------------------------

  function setBanner(problems) {
    const banner = $('banner');
    banner.textContent = problems.join('\n');
    banner.hidden = problems.length === 0;
  }

  function tierProblem(name, tier) {
    if (!tier || !tier.last_error) return null;
    return `${name} refresh failing (${tier.consecutive_failures} in a row, data ${ageText(tier.age_s)} old): ${tier.last_error}`;
  }

  const state = { updates: 0, topologyAsOf: null, groups: [], lastGood: null };

  async function update() {
    const problems = [];
    const settle = (promise) => promise.then((v) => v, (e) => e);
    const [cluster, ready, queues, hosts, jobs, placement] = await Promise.all([
      settle(getJson('/v1/cluster')), settle(getJson('/readyz')), settle(getJson('/v1/queues')),
      settle(getJson('/v1/hosts')), settle(loadJobs()), settle(getJson('/v1/placement')),
    ]);
    if (cluster instanceof Error) {
      problems.push(cluster.message);
    } else {
      if (cluster.load && typeof cluster.load.refresh_s === 'number') daemonRefreshS = cluster.load.refresh_s;
      $('cluster').textContent = [cluster.cluster_name, cluster.master_name && `master ${cluster.master_name}`,
        cluster.lsf_version].filter(Boolean).join(' \u00b7 ');
      for (const p of [tierProblem('load', cluster.load), tierProblem('topology', cluster.topology)]) {
        if (p) problems.push(p);
      }
      // Host groups change only with the topology: asked again only then.
      if (cluster.topology && cluster.topology.as_of !== state.topologyAsOf) {
        const groups = await settle(getJson('/v1/hostgroups'));
        if (groups instanceof Error) {
          problems.push(groups.message);
        } else {
          state.groups = groups.host_groups;
          state.topologyAsOf = cluster.topology.as_of;
        }
      }
    }
    if (ready instanceof Error && ready.status !== 0) problems.push(`not ready: ${ready.message}`);
    if (queues instanceof Error) problems.push(queues.message);
    else renderQueues(queues.queues, expectedStarts(placement instanceof Error ? null : placement));
    if (hosts instanceof Error) problems.push(hosts.message);
    else renderHosts(hosts.hosts, state.groups);
    const jobsProblem = renderJobs(jobs);
    if (jobsProblem) problems.push(jobsProblem);

    const fresh = !(cluster instanceof Error) && !(queues instanceof Error) && !(hosts instanceof Error);
    if (fresh) state.lastGood = new Date();
    const ages = [];
    if (!(cluster instanceof Error)) {
      ages.push(`load data ${ageText(cluster.age_s)} old`);
      ages.push(`topology ${ageText(cluster.topology ? cluster.topology.age_s : null)} old`);
    }
    if (!(jobs instanceof Error)) ages.push(`jobs ${ageText(jobs.age_s)} old`);
    const record = cluster instanceof Error ? null : cluster.wait_predictions;
    if (record && record.predictions > 0) {
      ages.push(`wait bounds held for ${record.within_bound} of ${record.predictions} jobs (${Math.round(record.quantile * 100)}% bound)`);
    }
    ages.push(state.lastGood ? `page updated ${state.lastGood.toLocaleTimeString()}` : 'no data yet');
    ages.push(`every ${refreshSeconds()} s`);
    $('ages').textContent = ages.join(' \u00b7 ');
    setBanner(problems);
    document.body.dataset.state = fresh ? 'ready' : 'error';
    document.body.dataset.updates = String(++state.updates);
  }

  async function tick() {
    try {
      await update();
    } catch (error) {
      setBanner([`status page error: ${error.message}`]);
      document.body.dataset.state = 'error';
    }
    window.setTimeout(tick, refreshSeconds() * 1000);
  }

  document.addEventListener('DOMContentLoaded', () => {
    renderLegend();
    $('hostmap').addEventListener('click', onMapClick);
    tick();
  });
})();
