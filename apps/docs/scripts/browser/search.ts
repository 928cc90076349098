/**
 * The site's search, bundled by the build into search.js (with MiniSearch) and loaded by every
 * page: the box in the navigation searches search-index.json (every page, operation, error code
 * and changelog entry; scripts/search-index.ts), fetched on first use. The site's root is where
 * this script was loaded from, so links hold on any page at any depth. On the 404 page, it also
 * suggests pages for the missing address's last segment.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { SearchEntry, SearchIndexFile } from '../search-index.js';

const root = new URL('.', (document.currentScript as HTMLScriptElement | null)?.src ?? location.href);
let loaded: Promise<MiniSearch<SearchEntry>> | undefined;

function searchIndex(): Promise<MiniSearch<SearchEntry>> {
  loaded ??= fetch(new URL('search-index.json', root))
    .then((response) => {
      if (!response.ok) throw new Error(`search-index.json: ${response.status}`);
      return response.json() as Promise<SearchIndexFile>;
    })
    .then((file) => {
      const search = new MiniSearch<SearchEntry>({
        fields: ['title', 'keywords', 'text'],
        storeFields: ['title', 'section', 'url', 'excerpt'],
        searchOptions: { boost: { title: 3, keywords: 3 }, prefix: true, fuzzy: 0.15, combineWith: 'AND' },
      });
      search.addAll(file.entries);
      return search;
    });
  return loaded;
}

type Hit = SearchResult & Pick<SearchEntry, 'title' | 'section' | 'url' | 'excerpt'>;

async function find(query: string, limit: number): Promise<Hit[]> {
  const search = await searchIndex();
  return (search.search(query) as Hit[]).slice(0, limit);
}

function resultItem(hit: Hit): HTMLLIElement {
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = new URL(hit.url, root).href;
  const section = document.createElement('span');
  section.className = 'gm-search-section';
  section.textContent = hit.section;
  const excerpt = document.createElement('small');
  excerpt.textContent = hit.excerpt;
  link.append(section, hit.title, excerpt);
  item.append(link);
  return item;
}

function attach(box: HTMLElement): void {
  const input = box.querySelector('input')!;
  const list = box.querySelector('ol')!;
  let asked = 0;
  const show = async () => {
    const query = input.value.trim();
    const ask = ++asked;
    if (!query) return void (list.hidden = true);
    let hits: Hit[];
    try {
      hits = await find(query, 12);
    } catch (error) {
      hits = [];
      console.warn(error);
    }
    if (ask !== asked) return; // a newer query is on its way
    list.replaceChildren(...hits.map(resultItem));
    if (hits.length === 0) {
      const none = document.createElement('li');
      none.className = 'gm-search-none';
      none.textContent = `Nothing found for “${query}”.`;
      list.append(none);
    }
    list.hidden = false;
  };
  input.addEventListener('focus', () => void searchIndex().catch(() => undefined), { once: true });
  input.addEventListener('input', () => void show());
  input.addEventListener('keydown', (event) => {
    const links = [...list.querySelectorAll('a')];
    if (event.key === 'Escape') list.hidden = true;
    else if (event.key === 'Enter' && links[0]) location.href = links[0].href;
    else if (event.key === 'ArrowDown' && links[0]) {
      event.preventDefault();
      links[0].focus();
    }
  });
  list.addEventListener('keydown', (event) => {
    const links = [...list.querySelectorAll('a')];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (event.key === 'ArrowDown' && at < links.length - 1) links[at + 1]!.focus();
    else if (event.key === 'ArrowUp') (at > 0 ? links[at - 1]! : input).focus();
    else if (event.key === 'Escape') {
      list.hidden = true;
      input.focus();
    } else return;
    event.preventDefault();
  });
  document.addEventListener('click', (event) => {
    if (!box.contains(event.target as Node)) list.hidden = true;
  });
}

/** On the 404 page: pages the missing address may have meant, found by its last segment. */
async function suggest(): Promise<void> {
  const target = document.getElementById('gm-suggestions');
  const segment = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '').replace(/\.html?$/, '');
  if (!target || !segment) return;
  const hits = await find(segment.replace(/[-_.]+/g, ' '), 5);
  if (hits.length === 0) return;
  const heading = document.createElement('p');
  heading.textContent = `Pages about “${segment}”:`;
  const list = document.createElement('ul');
  list.className = 'gm-suggestions';
  list.append(...hits.map(resultItem));
  target.replaceChildren(heading, list);
}

function start(): void {
  for (const box of document.querySelectorAll<HTMLElement>('.gm-search')) attach(box);
  if (document.body.dataset.page === 'not-found') void suggest();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
