/**
 * Kubelets 1.31+ hash `json.Marshal(map[string]string{"name": …, "image": …})`: a Go map, so its
 * keys come out sorted (`image` before `name`), and both are always present.
 */
import { writeGoJsonString } from './gojson-string.js';
import type { JsonEscapeMode } from '../models/json-escapes.js';
import type { ByteSink } from './sink.js';
import { utf8 } from './utf8.js';

const IMAGE_KEY = utf8('{"image":');
const NAME_KEY = utf8(',"name":');
const CLOSE_BRACE = 0x7d;

export function writeNameImageJson(sink: ByteSink, name: string, image: string, mode: JsonEscapeMode): void {
  sink.writeBytes(IMAGE_KEY);
  writeGoJsonString(sink, image, mode);
  sink.writeBytes(NAME_KEY);
  writeGoJsonString(sink, name, mode);
  sink.writeByte(CLOSE_BRACE);
}
