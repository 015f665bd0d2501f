//! A tiny decoder: embedding lookup, matmul, argmax. Enough to make the
//! sampling exercises look like inference, small enough to check exactly.

use crate::elem::{AsView, ElemKind, RawView};
use crate::error::Result;
use crate::kernels::{Kernel, cpu};
use crate::memory::DeviceBuffer;
use crate::stream::Stream;
use std::time::Duration;

/// The shape and the GPU time of a [`Decoder`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecoderConfig {
    /// Number of tokens.
    pub vocab: usize,
    /// Width of an embedding.
    pub hidden: usize,
    /// Seed of the weights: the same seed gives the same model everywhere.
    pub seed: u64,
    /// GPU time of one step (the kernel spins for it first, then computes).
    pub step_time: Duration,
}

/// The weights of a decoder, on the device and on the host.
#[derive(Debug)]
pub struct Decoder {
    config: DecoderConfig,
    embedding: DeviceBuffer<f32>,
    weight: DeviceBuffer<f32>,
    host_embedding: Vec<f32>,
    host_weight: Vec<f32>,
}

impl Decoder {
    /// Makes the weights from `config.seed` and uploads them on `stream`
    /// (pageable copies: do this at setup, not in a hot loop).
    #[track_caller]
    pub fn new(stream: &Stream, config: DecoderConfig) -> Result<Self> {
        let host_embedding = weights(config.seed, config.vocab * config.hidden);
        let host_weight = weights(
            config.seed ^ 0x9e37_79b9_7f4a_7c15,
            config.hidden * config.vocab,
        );
        let embedding = stream.alloc_zeros(host_embedding.len())?;
        let weight = stream.alloc_zeros(host_weight.len())?;
        stream.copy_from_host(&host_embedding, &embedding)?;
        stream.copy_from_host(&host_weight, &weight)?;
        Ok(Self {
            config,
            embedding,
            weight,
            host_embedding,
            host_weight,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &DecoderConfig {
        &self.config
    }

    pub(crate) fn kernel(&self, tokens_in: RawView, tokens_out: RawView) -> Kernel {
        Kernel::DecodeStep {
            tokens_in,
            embedding: self.embedding.view().raw(),
            weight: self.weight.view().raw(),
            tokens_out,
            batch: tokens_in.len,
            hidden: self.config.hidden,
            vocab: self.config.vocab,
            pad_ns: self.config.step_time.as_nanos() as u64,
        }
    }

    /// The next token after each of `tokens`, computed on the CPU with the
    /// kernel's CPU twin: what a step on the GPU must produce.
    pub fn reference_step(&self, tokens: &[i32]) -> Vec<i32> {
        let mut mem = HostModel::new(self, tokens);
        let view = |addr, len| RawView {
            addr,
            len,
            elem: ElemKind::F32,
        };
        let kernel = Kernel::DecodeStep {
            tokens_in: RawView {
                elem: ElemKind::I32,
                ..view(HostModel::TOKENS, tokens.len())
            },
            embedding: view(HostModel::EMBEDDING, self.host_embedding.len()),
            weight: view(HostModel::WEIGHT, self.host_weight.len()),
            tokens_out: RawView {
                elem: ElemKind::I32,
                ..view(HostModel::OUT, tokens.len())
            },
            batch: tokens.len(),
            hidden: self.config.hidden,
            vocab: self.config.vocab,
            pad_ns: 0,
        };
        cpu::run(&kernel, &mut mem);
        bytemuck::pod_collect_to_vec(&mem.regions[3])
    }
}

/// Deterministic weights in [-1, 1), multiples of 1/1024 (exact in `f32`).
fn weights(seed: u64, len: usize) -> Vec<f32> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            // splitmix64
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            ((z % 2048) as f32 - 1024.0) / 1024.0
        })
        .collect()
}

/// The decoder's weights and a batch of tokens laid out for the CPU twin.
struct HostModel {
    regions: [Vec<u8>; 4],
}

impl HostModel {
    const TOKENS: u64 = 0x1000_0000;
    const EMBEDDING: u64 = 0x2000_0000;
    const WEIGHT: u64 = 0x3000_0000;
    const OUT: u64 = 0x4000_0000;

    fn new(decoder: &Decoder, tokens: &[i32]) -> Self {
        Self {
            regions: [
                bytemuck::cast_slice(tokens).to_vec(),
                bytemuck::cast_slice(&decoder.host_embedding).to_vec(),
                bytemuck::cast_slice(&decoder.host_weight).to_vec(),
                vec![0; std::mem::size_of_val(tokens)],
            ],
        }
    }

    fn locate(addr: u64) -> (usize, usize) {
        let region = (addr >> 28) as usize - 1;
        (region, (addr & 0x0fff_ffff) as usize)
    }
}

impl cpu::KernelMemory for HostModel {
    fn read(&self, addr: u64, bytes: usize) -> Vec<u8> {
        let (r, off) = Self::locate(addr);
        self.regions[r][off..off + bytes].to_vec()
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        let (r, off) = Self::locate(addr);
        self.regions[r][off..off + data.len()].copy_from_slice(data);
    }
}
