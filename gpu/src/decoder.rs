//! A tiny decoder: embedding lookup, matmul, argmax. Enough to make the
//! sampling exercises look like inference, small enough to check exactly.

use crate::device::Device;
use crate::elem::{AsView, ElemKind, RawView};
use crate::error::Result;
use crate::kernels::{Kernel, cpu};
use crate::memory::DeviceBuffer;
use crate::remote::What;
use crate::stream::Stream;
use crate::trace::CallSite;
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use std::time::Duration;

/// The shape and the GPU time of a [`Decoder`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// The weights of a decoder, on the device and on the host. Cheap to
/// clone: the clones share the weights.
#[derive(Clone, Debug)]
pub struct Decoder {
    inner: Rc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: DecoderConfig,
    weights: Weights,
    host_embedding: Vec<f32>,
    host_weight: Vec<f32>,
}

/// Where the device's copy of the weights is.
#[derive(Debug)]
enum Weights {
    /// On this process's device.
    Local {
        embedding: DeviceBuffer<f32>,
        weight: DeviceBuffer<f32>,
    },
    /// On a device of the judge's, as its decoder `id` ([`crate::remote`]).
    Remote { device: Device, id: u32 },
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Weights::Remote { device, id } = &self.weights
            && let Some(remote) = device.proxy()
        {
            let site = CallSite::internal("drop of a Decoder");
            remote.forget(site, What::DropDecoder { decoder: *id });
        }
    }
}

/// The embedding and the output weights of `config`, made from its seed.
fn host_weights(config: &DecoderConfig) -> (Vec<f32>, Vec<f32>) {
    let embedding = weights(config.seed, config.vocab * config.hidden);
    let weight = weights(
        config.seed ^ 0x9e37_79b9_7f4a_7c15,
        config.hidden * config.vocab,
    );
    (embedding, weight)
}

impl Decoder {
    /// Makes the weights from `config.seed` and uploads them on `stream`
    /// (pageable copies: do this at setup, not in a hot loop).
    #[track_caller]
    pub fn new(stream: &Stream, config: DecoderConfig) -> Result<Self> {
        let site = CallSite::caller();
        if let Some(remote) = stream.device().proxy() {
            let what = What::NewDecoder {
                stream: stream.id(),
                config: config.clone(),
            };
            let id = remote.call(site, what)?;
            return Ok(Self::remote(stream.device().clone(), id, config));
        }
        let (host_embedding, host_weight) = host_weights(&config);
        let embedding = stream.alloc_zeros(host_embedding.len())?;
        let weight = stream.alloc_zeros(host_weight.len())?;
        stream.copy_from_host(&host_embedding, &embedding)?;
        stream.copy_from_host(&host_weight, &weight)?;
        Ok(Self::with(
            config,
            Weights::Local { embedding, weight },
            (host_embedding, host_weight),
        ))
    }

    fn with(config: DecoderConfig, weights: Weights, host: (Vec<f32>, Vec<f32>)) -> Self {
        Self {
            inner: Rc::new(Inner {
                config,
                weights,
                host_embedding: host.0,
                host_weight: host.1,
            }),
        }
    }

    /// A proxy of decoder `id` of the judge's `device`; its host weights are
    /// made here again from the seed, for [`Decoder::reference_step`].
    pub(crate) fn remote(device: Device, id: u32, config: DecoderConfig) -> Self {
        let host = host_weights(&config);
        Self::with(config, Weights::Remote { device, id }, host)
    }

    /// The configuration.
    pub fn config(&self) -> &DecoderConfig {
        &self.inner.config
    }

    /// The device its weights live on (for the judge's side of a remote device).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn device(&self) -> &Device {
        match &self.inner.weights {
            Weights::Local { embedding, .. } => embedding.device(),
            Weights::Remote { device, .. } => device,
        }
    }

    /// Its handle on the judge's `device`, when it is a proxy of that device's.
    pub(crate) fn remote_id(&self, on: &Device) -> Option<u32> {
        match &self.inner.weights {
            Weights::Remote { device, id } if device.same(on) => Some(*id),
            _ => None,
        }
    }

    /// The kernel of one step on this process's device; `None` for a proxy.
    pub(crate) fn kernel(&self, tokens_in: RawView, tokens_out: RawView) -> Option<Kernel> {
        let Weights::Local { embedding, weight } = &self.inner.weights else {
            return None;
        };
        let config = &self.inner.config;
        Some(Kernel::DecodeStep {
            tokens_in,
            embedding: embedding.view().raw(),
            weight: weight.view().raw(),
            tokens_out,
            batch: tokens_in.len,
            hidden: config.hidden,
            vocab: config.vocab,
            pad_ns: config.step_time.as_nanos() as u64,
        })
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
            embedding: view(HostModel::EMBEDDING, self.inner.host_embedding.len()),
            weight: view(HostModel::WEIGHT, self.inner.host_weight.len()),
            tokens_out: RawView {
                elem: ElemKind::I32,
                ..view(HostModel::OUT, tokens.len())
            },
            batch: tokens.len(),
            hidden: self.inner.config.hidden,
            vocab: self.inner.config.vocab,
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
                bytemuck::cast_slice(&decoder.inner.host_embedding).to_vec(),
                bytemuck::cast_slice(&decoder.inner.host_weight).to_vec(),
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
