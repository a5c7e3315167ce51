/**
 * Go's encoding/json turns an unpaired UTF-16 surrogate (`"\ud800"`) into U+FFFD; a JS string can
 * hold one, so every decoded string passes through here to match the Go string the kubelet has.
 */
export function goStringFromJson(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        i++;
        continue;
      }
    }
    return replaceLoneSurrogates(s);
  }
  return s;
}

function replaceLoneSurrogates(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
    }
    out += c >= 0xd800 && c <= 0xdfff ? '\ufffd' : s[i]!;
  }
  return out;
}
