/**
 * Finds what in a page would make a browser fetch from outside the site:
 * absolute http(s) URLs in resource attributes (script, link, img, iframe,
 * source, video, audio, object, embed), in CSS `url(...)` and `@import`, and
 * any mention of a known CDN host anywhere (the inlined Redoc bundle included).
 * Links a reader may click (`<a href>`) are not fetches and are allowed.
 */
const resourceAttribute =
  /<(script|link|img|iframe|source|video|audio|object|embed|image|use)\b[^>]*?\s(src|href|srcset|data|poster|xlink:href)\s*=\s*["']?\s*((?:https?:)?\/\/[^"'\s>]+)/gi;
const cssUrl = /url\(\s*["']?\s*((?:https?:)?\/\/[^"')\s]+)/gi;
const cssImport = /@import\s+["']((?:https?:)?\/\/[^"']+)/gi;
const cdnHosts = /\b((?:cdn\.redoc\.ly|cdn\.redocly\.com|fonts\.googleapis\.com|fonts\.gstatic\.com|unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com)[^"'`\s)]*)/gi;

export function externalResourceUrls(html: string): string[] {
  const found = new Set<string>();
  for (const match of html.matchAll(resourceAttribute)) found.add(`<${match[1]!.toLowerCase()} ${match[2]}> ${match[3]}`);
  for (const match of html.matchAll(cssUrl)) found.add(`css url() ${match[1]}`);
  for (const match of html.matchAll(cssImport)) found.add(`css @import ${match[1]}`);
  for (const match of html.matchAll(cdnHosts)) found.add(`cdn ${match[1]}`);
  return [...found].sort();
}
