/**
 * Go's `strings.TrimSpace`: strips leading and trailing Unicode white space as `unicode.IsSpace`
 * defines it. JavaScript's `trim()` differs: it also strips U+FEFF and keeps U+0085.
 */
const GO_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && GO_SPACE.has(s.charCodeAt(start))) start++;
  while (end > start && GO_SPACE.has(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}
