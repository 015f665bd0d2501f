use gpu::{Backend, Decoder, DecoderConfig, Device};
use std::time::Duration;
fn main() {
    let device = Device::open(Backend::Virtual).unwrap();
    let s = device.new_stream().unwrap();
    for (vocab, hidden, seed) in [(512usize, 64usize, 102u64), (256, 32, 102), (512, 64, 7)] {
        let d = Decoder::new(&s, DecoderConfig { vocab, hidden, seed, step_time: Duration::from_millis(2) }).unwrap();
        let all: Vec<i32> = (0..vocab as i32).collect();
        let f = d.reference_step(&all);
        // in-tree depth to each token
        let mut best = (0, 0, vec![]);
        for eos in 0..vocab {
            let mut depths = vec![];
            for t in 0..vocab {
                let mut x = t; let mut k = 0;
                loop { x = f[x] as usize; k += 1; if x == eos { depths.push((t, k)); break; } if k > 40 { break; } }
            }
            let distinct: std::collections::BTreeSet<_> = depths.iter().map(|d| d.1).collect();
            if distinct.len() > best.0 { best = (distinct.len(), eos, depths.clone()); }
        }
        let mut ds = best.2.clone(); ds.sort_by_key(|d| d.1);
        println!("vocab {vocab} hidden {hidden} seed {seed}: eos {} depths {:?}", best.1, ds.iter().take(60).collect::<Vec<_>>());
        let cyc: Vec<usize> = (0..vocab).filter(|&t| { let mut x=t; for _ in 0..vocab { x = f[x] as usize; if x==t {return true;} } false }).collect();
        println!("  cycle tokens {:?}", cyc);
    }
}
