//! The im2col traversal of a tensor map (PTX ISA 5.5.4, "im2col mode"):
//! which tensor elements an im2col `cp.async.bulk.tensor` moves, and where
//! each lands in the shared-memory box.
//!
//! A rank-`r` im2col map (3 to 5) has dimension 0 = C (channels), 1 to
//! `r - 2` the spatial dimensions W, H, D (innermost first, as
//! `cuTensorMapEncodeIm2col` orders its corners), and `r - 1` = N. The
//! bounding box is defined in the spatial space: along spatial dimension
//! `i` it runs from `lower_i` to `dim_i - 1 + upper_i`, both inclusive.
//! The copy's coordinates give the starting channel `c`, the filter base
//! (the first pixel's position, which the manual requires inside the box)
//! and the image `n`; its im2col offsets (one per spatial dimension, whose
//! range depends on the rank) are added to each position to give the pixel
//! that is read.
//!
//! `pixels` (Pixels-per-Column) positions are visited in order, W fastest:
//! a position steps by the dimension's traversal stride (its element
//! stride); past the box's upper bound it returns to the lower bound and
//! the next dimension steps; past the last spatial dimension the next
//! image (`n + 1`) starts. Each position's pixel contributes `channels`
//! (Channels-per-Pixel) consecutive elements from channel `c`. An element
//! outside the tensor (a negative or too-large spatial coordinate: the
//! convolution's padding; or `n`, `c` out of range) reads as the fill
//! value. In shared memory the box is dense, one row of `channels`
//! elements per pixel, then swizzled like a tile-mode box.
//!
//! Not modelled (reported by name): an interleaved layout and a traversal
//! stride on N in an im2col copy, and sm_100's `.im2col::w` modes.

use super::{err, Interleave, MapError, Mode, TensorMap};

/// The largest im2col offset for a map of rank 3, 4 and 5 (PTX ISA
/// 5.5.4.1: `[0, 2^16-1]`, `[0, 2^8-1]`, `[0, 2^5-1]`).
const MAX_OFFSET: [u32; 3] = [(1 << 16) - 1, (1 << 8) - 1, (1 << 5) - 1];

impl TensorMap {
    /// Every element an im2col copy at `coords` (one per dimension) with
    /// `offsets` (one per spatial dimension) moves, in shared-memory order:
    /// `f(smem_offset, global)` with the dense (unswizzled) offset in the
    /// box and the element's global address, or `None` when it lies outside
    /// the tensor. `Err`, naming the field, for a tiled map, a wrong number
    /// of coordinates or offsets, an offset past its range, a filter base
    /// outside the bounding box, or what is not modelled.
    pub fn im2col_elems(&self, coords: &[i32], offsets: &[u16], mut f: impl FnMut(u64, Option<u64>)) -> Result<(), MapError> {
        let Mode::Im2col { lower, upper, channels, pixels } = self.mode else {
            return err("mode", "an im2col copy needs an im2col tensor map, and this one is tiled");
        };
        let r = self.rank as usize;
        if !(3..=5).contains(&r) {
            return err("tensorRank", format!("{r}: an im2col tensor map has rank 3, 4 or 5"));
        }
        if coords.len() != r {
            return err("tensorRank", format!("the copy gives {} coordinates for a rank-{r} tensor map", coords.len()));
        }
        let ns = r - 2;
        if offsets.len() != ns {
            return err("im2colOffsets", format!("the copy gives {} im2col offsets; a rank-{r} tensor map takes {ns}", offsets.len()));
        }
        let max = MAX_OFFSET[r - 3];
        if let Some((i, o)) = offsets.iter().enumerate().find(|(_, &o)| u32::from(o) > max) {
            return err(format!("im2colOffsets[{i}]"), format!("{o}: must be 0 to {max} for a rank-{r} tensor map"));
        }
        if self.interleave != Interleave::None {
            return err("interleave", "an interleaved layout in an im2col copy is not modelled");
        }
        if self.elem_strides[r - 1] != 1 {
            return err(format!("elementStrides[{}]", r - 1), "a traversal stride along N in an im2col copy is not modelled (the manual strides D, H and W)");
        }
        let (mut lo, mut hi, mut step, mut pos) = ([0i64; 3], [0i64; 3], [1i64; 3], [0i64; 3]);
        for i in 0..ns {
            lo[i] = i64::from(lower[i]);
            hi[i] = self.dims[1 + i] as i64 - 1 + i64::from(upper[i]);
            step[i] = i64::from(self.elem_strides[1 + i]);
            pos[i] = i64::from(coords[1 + i]);
            if pos[i] < lo[i] || pos[i] > hi[i] {
                return err(
                    format!("pixelBoxLowerCorner[{i}]"),
                    format!(
                        "the copy's filter base {} along dimension {} lies outside the bounding box [{}, {}] (globalDim {} with corners {} and {}); the manual requires it inside",
                        pos[i],
                        1 + i,
                        lo[i],
                        hi[i],
                        self.dims[1 + i],
                        lower[i],
                        upper[i]
                    ),
                );
            }
        }
        let es = u64::from(self.elem_size()?);
        let (c0, mut n) = (i64::from(coords[0]), i64::from(coords[r - 1]));
        let inside = |x: i64, dim: u64| x >= 0 && (x as u64) < dim;
        let mut off = 0u64;
        for _ in 0..pixels {
            // The pixel's address, without its channel; `None` outside.
            let mut at = inside(n, self.dims[r - 1]).then(|| self.addr.wrapping_add((n as u64).wrapping_mul(self.strides[r - 1])));
            for i in 0..ns {
                let x = pos[i] + i64::from(offsets[i]);
                at = at.filter(|_| inside(x, self.dims[1 + i])).map(|a| a.wrapping_add((x as u64).wrapping_mul(self.strides[1 + i])));
            }
            for ch in 0..i64::from(channels) {
                let c = c0 + ch;
                f(off, at.filter(|_| inside(c, self.dims[0])).map(|a| a.wrapping_add(c as u64 * es)));
                off += es;
            }
            // The next position: W steps; past the box, the next dimension.
            let mut i = 0;
            loop {
                if i == ns {
                    n += 1;
                    break;
                }
                pos[i] += step[i];
                if pos[i] <= hi[i] {
                    break;
                }
                pos[i] = lo[i];
                i += 1;
            }
        }
        Ok(())
    }
}
