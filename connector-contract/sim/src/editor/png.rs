//! A minimal PNG writer for solid-colour images (what the simulator can honestly "render").
//!
//! Written by hand to avoid a compression dependency for one feature: the image data is
//! compressed with fixed-Huffman DEFLATE using only back-references at distance 1 and 4, which is
//! enough to shrink a uniform 1920×1080 RGBA frame from 8 MB to a few tens of KB.

/// Encode a `width`×`height` RGBA image filled with `rgba`.
pub fn solid(width: u32, height: u32, rgba: [u8; 4]) -> Vec<u8> {
    let row = width as usize * 4;
    let mut raw = Vec::with_capacity((row + 1) * height as usize);
    for y in 0..height {
        if y == 0 {
            raw.push(0); // filter None: the pixels themselves
            for _ in 0..width {
                raw.extend_from_slice(&rgba);
            }
        } else {
            raw.push(2); // filter Up: identical to the row above, all zeros
            raw.resize(raw.len() + row, 0);
        }
    }
    let mut z = vec![0x78, 0x01];
    z.extend(deflate(&raw));
    z.extend(adler32(&raw).to_be_bytes());

    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]); // 8-bit RGBA, deflate, adaptive filters, no interlace
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &z);
    chunk(&mut png, b"IEND", &[]);
    png
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend(crc.to_be_bytes());
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for b in bytes {
        crc ^= *b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in bytes.chunks(5552) {
        for x in chunk {
            a += *x as u32;
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        for i in 0..count {
            self.acc |= ((value >> i) & 1) << self.n;
            self.n += 1;
            if self.n == 8 {
                self.out.push(self.acc as u8);
                self.acc = 0;
                self.n = 0;
            }
        }
    }
    /// Huffman codes go most-significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        for i in (0..len).rev() {
            self.put((code >> i) & 1, 1);
        }
    }
    fn literal(&mut self, sym: u32) {
        match sym {
            0..=143 => self.code(0x30 + sym, 8),
            144..=255 => self.code(0x190 + sym - 144, 9),
            256..=279 => self.code(sym - 256, 7),
            _ => self.code(0xC0 + sym - 280, 8),
        }
    }
}

const LENGTHS: [(u32, u32, u32); 29] = [
    (257, 3, 0),
    (258, 4, 0),
    (259, 5, 0),
    (260, 6, 0),
    (261, 7, 0),
    (262, 8, 0),
    (263, 9, 0),
    (264, 10, 0),
    (265, 11, 1),
    (266, 13, 1),
    (267, 15, 1),
    (268, 17, 1),
    (269, 19, 2),
    (270, 23, 2),
    (271, 27, 2),
    (272, 31, 2),
    (273, 35, 3),
    (274, 43, 3),
    (275, 51, 3),
    (276, 59, 3),
    (277, 67, 4),
    (278, 83, 4),
    (279, 99, 4),
    (280, 115, 4),
    (281, 131, 5),
    (282, 163, 5),
    (283, 195, 5),
    (284, 227, 5),
    (285, 258, 0),
];

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut bits = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // final block
    bits.put(1, 2); // fixed Huffman
    let run = |i: usize, dist: usize| -> usize {
        if i < dist {
            return 0;
        }
        let mut k = 0;
        while k < 258 && i + k < data.len() && data[i + k] == data[i + k - dist] {
            k += 1;
        }
        k
    };
    let mut i = 0;
    while i < data.len() {
        let (r1, r4) = (run(i, 1), run(i, 4));
        let (len, dist_code) = if r4 > r1 { (r4, 3) } else { (r1, 0) };
        if len >= 3 {
            let (sym, base, extra) = LENGTHS
                .iter()
                .rev()
                .find(|(_, base, _)| *base as usize <= len)
                .copied()
                .unwrap_or((257, 3, 0));
            bits.literal(sym);
            bits.put(len as u32 - base, extra);
            bits.code(dist_code, 5);
            i += len;
        } else {
            bits.literal(data[i] as u32);
            i += 1;
        }
    }
    bits.literal(256);
    if bits.n > 0 {
        bits.out.push(bits.acc as u8);
    }
    bits.out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode our own output with a straightforward inflater for the subset we emit.
    fn inflate_fixed(data: &[u8]) -> Vec<u8> {
        let mut pos = 0usize;
        let bit = |pos: &mut usize| {
            let b = (data[*pos / 8] >> (*pos % 8)) & 1;
            *pos += 1;
            b as u32
        };
        assert_eq!(bit(&mut pos), 1);
        assert_eq!(bit(&mut pos) | (bit(&mut pos) << 1), 1);
        let mut out: Vec<u8> = Vec::new();
        loop {
            let mut code = 0u32;
            let mut len = 0;
            let sym = loop {
                code = (code << 1) | bit(&mut pos);
                len += 1;
                match len {
                    7 if code <= 0x17 => break code + 256,
                    8 if (0x30..=0xBF).contains(&code) => break code - 0x30,
                    8 if (0xC0..=0xC7).contains(&code) => break code - 0xC0 + 280,
                    9 if code >= 0x190 => break code - 0x190 + 144,
                    _ => {}
                }
            };
            if sym == 256 {
                return out;
            }
            if sym < 256 {
                out.push(sym as u8);
                continue;
            }
            let (_, base, extra) = LENGTHS.iter().find(|l| l.0 == sym).copied().unwrap();
            let mut e = 0;
            for i in 0..extra {
                e |= bit(&mut pos) << i;
            }
            let mut d = 0;
            for _ in 0..5 {
                d = (d << 1) | bit(&mut pos);
            }
            let dist = d as usize + 1;
            for _ in 0..(base + e) {
                let b = out[out.len() - dist];
                out.push(b);
            }
        }
    }

    #[test]
    fn editor_png_is_valid_and_small() {
        let png = solid(64, 32, [43, 43, 43, 255]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 64);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 32);
        // IDAT payload round-trips.
        let idat_len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        assert_eq!(&png[37..41], b"IDAT");
        let z = &png[41..41 + idat_len];
        let raw = inflate_fixed(&z[2..z.len() - 4]);
        assert_eq!(raw.len(), (64 * 4 + 1) * 32);
        assert_eq!(&raw[1..5], &[43, 43, 43, 255]);
        assert_eq!(adler32(&raw).to_be_bytes(), z[z.len() - 4..]);
        assert!(solid(1920, 1080, [0, 0, 0, 255]).len() < 200_000);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }
}
