//! Diagnostic (not committed): the check's loop, each call of a replayed step timed.
use gpu::{Backend, Device, DeviceOptions};
use graph_buffers::{BUCKETS, MAX_ROWS, Model, WIDTH, bucket_for};
use std::time::Instant;
fn med(v: &mut Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}
fn main() {
    let interleave = std::env::args().nth(1).as_deref() == Some("eager");
    let fixed = std::env::args().nth(2).as_deref() == Some("fixed");
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Auto,
        quiet: true,
        ..Default::default()
    })
    .unwrap();
    let s = device.new_stream().unwrap();
    let len = MAX_ROWS * WIDTH;
    let [input, output, a, b, sin, sout, sa, sb] =
        std::array::from_fn(|_| s.alloc_zeros::<f32>(len).unwrap());
    let model = Model::new();
    model
        .forward(
            &s,
            sin.slice(0..len),
            sout.slice(0..len),
            [sa.slice(0..len), sb.slice(0..len)],
        )
        .unwrap();
    let graphs: Vec<_> = BUCKETS
        .iter()
        .map(|&bk| {
            let n = bk * WIDTH;
            s.begin_capture().unwrap();
            model
                .forward(
                    &s,
                    sin.slice(0..n),
                    sout.slice(0..n),
                    [sa.slice(0..n), sb.slice(0..n)],
                )
                .unwrap();
            s.end_capture().unwrap()
        })
        .collect();
    let sizes = [1usize, 3, 16, 5, 2, 9, 4, 16, 7, 1, 12, 8];
    let mut t: [Vec<f64>; 6] = Default::default();
    for (k, &rows) in sizes.iter().cycle().take(300).enumerate() {
        let rows = if fixed { 16 } else { rows };
        let n = rows * WIDTH;
        if interleave {
            s.synchronize().unwrap();
            let t0 = Instant::now();
            model
                .forward(
                    &s,
                    input.slice(0..n),
                    output.slice(0..n),
                    [a.slice(0..n), b.slice(0..n)],
                )
                .unwrap();
            if k > 20 {
                t[5].push(t0.elapsed().as_nanos() as f64 / 1e3);
            }
        }
        s.synchronize().unwrap();
        let bk = bucket_for(rows).unwrap();
        let g = &graphs[BUCKETS.iter().position(|&x| x == bk).unwrap()];
        let t0 = Instant::now();
        s.copy(input.slice(0..n), sin.slice(0..n)).unwrap();
        let t1 = Instant::now();
        if bk > rows {
            s.fill(sin.slice(n..bk * WIDTH), 0.0).unwrap();
        }
        let t2 = Instant::now();
        g.launch().unwrap();
        let t3 = Instant::now();
        s.copy(sout.slice(0..n), output.slice(0..n)).unwrap();
        let t4 = Instant::now();
        if k > 20 {
            for (i, (p, q)) in [(t0, t1), (t1, t2), (t2, t3), (t3, t4), (t0, t4)]
                .iter()
                .enumerate()
            {
                t[i].push((*q - *p).as_nanos() as f64 / 1e3);
            }
        }
    }
    let mut line = format!("{} eager={interleave} fixed={fixed}:", device.backend());
    for (name, v) in ["copy in", "fill", "launch", "copy out", "step", "eager"]
        .iter()
        .zip(t.iter_mut())
    {
        if !v.is_empty() {
            line += &format!(" {name} {:.1}", med(v));
        }
    }
    println!("{line} (us, medians)");
}
