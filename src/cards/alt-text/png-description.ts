// A PNG that carries its card's alt text: an iTXt chunk with the keyword "Description" (the PNG
// specification's registered keyword for a description of the image), UTF-8, uncompressed, placed
// right after the header chunk. Image viewers, asset managers and some upload forms read it.
import zlib from 'node:zlib';

const signatureLength = 8;

export function withDescription(png: Buffer, description: string): Buffer {
  if (!description) return png;
  // keyword, NUL, compression flag 0, method 0, empty language tag NUL, empty translated keyword NUL, text
  const data = Buffer.concat([Buffer.from('Description\0\0\0\0\0', 'latin1'), Buffer.from(description, 'utf8')]);
  const type = Buffer.from('iTXt', 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  type.copy(chunk, 4);
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(Buffer.concat([type, data])), 8 + data.length);
  // The header chunk (IHDR) comes first: length 13, so it ends 8 + 4 + 4 + 13 + 4 bytes in.
  const headerEnd = signatureLength + 12 + png.readUInt32BE(signatureLength);
  return Buffer.concat([png.subarray(0, headerEnd), chunk, png.subarray(headerEnd)]);
}
