//! The learner's side: the proxies of what the judge handed over. Each is
//! the same type learner code always uses ([`Device`], [`Stream`],
//! [`PinnedBuffer`], [`Decoder`]), whose calls go to the judge's process.

use super::{DecoderRef, DeviceRef, Link, PinnedRef, Proxy, StreamRef};
use crate::decoder::Decoder;
use crate::device::Device;
use crate::elem::Elem;
use crate::memory::PinnedBuffer;
use crate::stream::Stream;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

thread_local! {
    /// The proxies made so far, by link and handle: one per device, so that
    /// a device's calls share its description.
    static PROXIES: RefCell<HashMap<(usize, u32), Weak<Proxy>>> = RefCell::new(HashMap::new());
}

/// The judge's device `device`, on the other end of `link`.
pub fn device(link: &Rc<Link>, device: DeviceRef) -> Device {
    let key = (Rc::as_ptr(link) as usize, device.0);
    let known = PROXIES.with(|p| p.borrow().get(&key).and_then(Weak::upgrade));
    let proxy = known.unwrap_or_else(|| {
        let proxy = Rc::new(Proxy::open(Rc::clone(link), device.0));
        PROXIES.with(|p| p.borrow_mut().insert(key, Rc::downgrade(&proxy)));
        proxy
    });
    Device::remote(proxy)
}

/// The judge's stream `stream`.
pub fn stream(link: &Rc<Link>, stream: StreamRef) -> Stream {
    Stream::new(device(link, DeviceRef(stream.device)), stream.stream)
}

/// The pinned buffer the judge lent as `pinned`, of `T`s; `None` when it
/// holds another element type.
pub fn pinned<T: Elem>(link: &Rc<Link>, pinned: PinnedRef) -> Option<PinnedBuffer<T>> {
    (pinned.elem == T::KIND).then(|| {
        PinnedBuffer::new(
            device(link, DeviceRef(pinned.device)),
            pinned.host,
            pinned.len,
        )
    })
}

/// The decoder the judge lent as `decoder`.
pub fn decoder(link: &Rc<Link>, decoder: DecoderRef) -> Decoder {
    Decoder::remote(
        device(link, DeviceRef(decoder.device)),
        decoder.decoder,
        decoder.config,
    )
}

/// How `stream` travels back to the judge (a callback's argument): `None`
/// for a stream of a device of this process's own.
pub fn stream_ref(stream: &Stream) -> Option<StreamRef> {
    let proxy = stream.device().proxy()?;
    Some(StreamRef {
        device: proxy.handle(),
        stream: stream.id(),
    })
}
