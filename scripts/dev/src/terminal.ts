/** How the loop writes to the terminal: a prefix per source, colour only on a terminal. */
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

const colour = process.stdout.isTTY && !process.env.NO_COLOR;

export function paint(style: Style, text: string): string {
  return colour ? styleText(style, text) : text;
}

const prefixes: Record<string, Style> = { dev: 'cyan', stack: 'magenta', mock: 'yellow', docs: 'blue', types: 'green' };

/** `text`, each of its lines prefixed with the source it came from. */
export function prefixLines(source: string, text: string): string {
  const prefix = paint(prefixes[source] ?? 'gray', `${source.padEnd(5)} │ `);
  return text
    .split('\n')
    .filter((line, i, all) => line !== '' || i < all.length - 1)
    .map((line) => `${prefix}${line}\n`)
    .join('');
}

export function say(text: string): void {
  process.stdout.write(prefixLines('dev', text));
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
