//! `iceoryx2?service=reqres`: iceoryx2's request–response pattern, one
//! service of byte slices (`[u8]` requests, `[u8]` responses), the host the
//! client and the peer the server (issue #20: "service type —
//! publish-subscribe or request-response").
//!
//! Every message the host sends is a request built in a loaned request
//! (`Client::loan_slice_uninit` → write → `send`, which returns a pending
//! response); every message the peer sends is a response built in a loaned
//! response of the request it received last (`ActiveRequest::
//! loan_slice_uninit` → write → `send`). A ping is a request and its pong
//! that request's response, echoed from the request's memory into the
//! response's.
//!
//! icbench's engine moves more than ping-pong over a link: control
//! messages nobody answers, a stream host → peer answered by a credit per
//! half window, a stream peer → host and its credits. All of them map onto
//! request–response without a second channel:
//!
//! - a request nobody answers is just that; the service allows fire-and-
//!   forget requests so that the last one (the engine's quit) still
//!   reaches a server whose client is gone;
//! - the server answers on the request it received last (it drops the one
//!   before when the next arrives), and may send several responses on one
//!   request — a stream peer → host is the responses to the request that
//!   asked for it, then to each credit;
//! - the client keeps its pending responses in order of sending and reads
//!   from the oldest that has a response; a response to a later request
//!   means the server has moved past the earlier ones, which are dropped.
//!
//! So every pattern runs; what a stream over request–response measures is
//! requests (or responses) in flight up to the window, as over
//! publish–subscribe.
//!
//! The host's first call sends a hello request until a server is connected
//! to take it and waits for the server's answer (the server answers hellos
//! itself, whatever it is asked next), so the engine's first message finds
//! the server there.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use iceoryx2::active_request::ActiveRequest;
use iceoryx2::pending_response::PendingResponse;
use iceoryx2::port::BackpressureAction;
use iceoryx2::port::client::Client;
use iceoryx2::port::server::Server;
use iceoryx2::prelude::*;
use iceoryx2::response::Response;
use iceoryx2::service::port_factory::request_response::PortFactory;

use super::{HELLO, Options, Svc, Waiter, as_bytes, io, node, service_name, setup};
use crate::{Abort, Link, LinkCaps, LinkCounters, LinkError};

type Pending = PendingResponse<Svc, [u8], (), [u8], ()>;
type Active = ActiveRequest<Svc, [u8], (), [u8], ()>;
type Reply = Response<Svc, [u8], ()>;

/// The end's port and what it holds between calls.
enum End {
    /// The host: requests sent whose responses may still come, oldest
    /// first (capacity reserved at open: no allocation per message).
    Client { client: Client<Svc, [u8], (), [u8], ()>, pending: VecDeque<Pending> },
    /// The peer: the request received last, which its responses answer.
    Server { server: Server<Svc, [u8], (), [u8], ()>, current: Option<Active> },
}

/// One end. Fields drop in order: ports and what they hold first, then the
/// service, the node last.
pub(super) struct ReqResLink {
    end: End,
    waiter: Waiter,
    _service: PortFactory<Svc, [u8], (), [u8], ()>,
    _node: Node<Svc>,
    o: Options,
    abort: Abort,
    busy: Arc<AtomicU64>,
    /// The host end has not yet seen the server answer its hello.
    ready: bool,
}

// SAFETY: as for `PubSubLink`: every reference-counted iceoryx2 handle of
// this end lives in this struct and none is handed out, so moving the whole
// struct to another thread moves every clone together.
unsafe impl Send for ReqResLink {}

impl ReqResLink {
    pub(super) fn new(o: Options, host: bool, abort: Abort) -> Result<ReqResLink, LinkError> {
        let node = node()?;
        // Requests in flight: twice `buffer=`, the stream window and the
        // half window a credit lags behind. A wider window waits for the
        // credits as a publisher waits for a full subscriber (`put`).
        let in_flight = 2 * o.buffer;
        let builder = node
            .service_builder(&service_name(&format!("{}/reqres", o.name))?)
            .request_response::<[u8], [u8]>();
        let service = if host {
            builder
                .max_clients(1)
                .max_servers(1)
                .max_active_requests_per_client(in_flight)
                .max_response_buffer_size(o.buffer)
                .enable_safe_overflow_for_requests(false)
                .enable_safe_overflow_for_responses(false)
                .enable_fire_and_forget_requests(true)
                .create()
                .map_err(setup("create a request-response service"))?
        } else {
            builder.open().map_err(setup("open the host's request-response service"))?
        };
        let busy = Arc::new(AtomicU64::new(0));
        let backpressure = {
            let (abort, busy) = (abort.clone(), Arc::clone(&busy));
            move |_: &iceoryx2::port::BackpressureInfo| {
                if abort.is_set() {
                    BackpressureAction::DiscardDataAndFail
                } else {
                    busy.fetch_add(1, Ordering::Relaxed);
                    std::hint::spin_loop();
                    BackpressureAction::Retry
                }
            }
        };
        let end = if host {
            let client = service
                .client_builder()
                .initial_max_slice_len(o.max)
                .max_active_requests(in_flight)
                .set_backpressure_handler(backpressure)
                .create()
                .map_err(setup("create a client"))?;
            End::Client { client, pending: VecDeque::with_capacity(in_flight) }
        } else {
            let server = service
                .server_builder()
                .initial_max_slice_len(o.max)
                .set_backpressure_handler(backpressure)
                .create()
                .map_err(setup("create a server"))?;
            End::Server { server, current: None }
        };
        let waiter = Waiter::new(&node, &o, host, abort.clone())?;
        Ok(ReqResLink { end, waiter, _service: service, _node: node, o, abort, busy, ready: !host })
    }

    /// The host's first call: a hello request until a server took one,
    /// then that request's answer.
    fn handshake(&mut self) -> Result<(), LinkError> {
        if self.ready {
            return Ok(());
        }
        let End::Client { client, .. } = &self.end else { return Ok(()) };
        let pending = loop {
            let mut req = client.loan_slice_uninit(HELLO.len()).map_err(io("loan a request"))?;
            // SAFETY: `HELLO.len()` bytes of the client's shared memory.
            unsafe { as_bytes(req.payload_mut()) }.copy_from_slice(HELLO);
            // SAFETY: every byte written just above.
            let pending = unsafe { req.assume_init() }.send().map_err(io("send a request"))?;
            if pending.number_of_server_connections() > 0 {
                break pending;
            }
            // No server yet: the peer is still starting.
            drop(pending);
            if self.abort.is_set() {
                return Err(LinkError::Aborted);
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        };
        self.waiter.notify()?;
        let hello = loop {
            if let Some(r) = pending.receive().map_err(io("receive a response"))? {
                break r;
            }
            self.waiter.idle()?;
        };
        if hello.payload() != HELLO {
            return Err(LinkError::Device(
                "iceoryx2: the server's first response was not its hello".to_string(),
            ));
        }
        self.ready = true;
        Ok(())
    }

    /// The next message: the host's next response (module doc: from the
    /// oldest pending response that has one), the peer's next request.
    #[inline]
    fn next(&mut self, len: usize) -> Result<Incoming, LinkError> {
        self.handshake()?;
        let got = match &mut self.end {
            End::Client { pending, .. } => loop {
                if let Some(i) = oldest_answered(pending) {
                    // The server answers in order of its requests: those
                    // before `i` will get no more responses.
                    pending.drain(..i);
                    if let Some(r) = pending[0].receive().map_err(io("receive a response"))? {
                        break Incoming::Response(r);
                    }
                    continue;
                }
                self.waiter.idle()?;
            },
            End::Server { server, current } => loop {
                if let Some(req) = server.receive().map_err(io("receive a request"))? {
                    if req.payload() == HELLO {
                        answer(&req, HELLO.len(), &mut |b| b.copy_from_slice(HELLO))?;
                        self.waiter.notify()?;
                        continue;
                    }
                    // Dropping the one before ends it: no more answers to it.
                    *current = Some(req);
                    break Incoming::Request;
                }
                self.waiter.idle()?;
            },
        };
        let n = self.payload(&got).len();
        if n != len {
            return Err(LinkError::Framing(format!(
                "received a message of {n} B, expected {len} B"
            )));
        }
        Ok(got)
    }

    /// What `next` returned, as bytes.
    #[inline]
    fn payload<'a>(&'a self, got: &'a Incoming) -> &'a [u8] {
        match (got, &self.end) {
            (Incoming::Response(r), _) => r.payload(),
            (Incoming::Request, End::Server { current: Some(req), .. }) => req.payload(),
            _ => &[],
        }
    }

    /// Sends a message of `len` bytes that `build` writes: the host a
    /// request, the peer a response to the request it received last.
    #[inline]
    fn put(&mut self, len: usize, build: &mut dyn FnMut(&mut [u8])) -> Result<(), LinkError> {
        self.o.check_size(len)?;
        self.handshake()?;
        let aborted = self.abort.is_set();
        match &mut self.end {
            End::Client { client, pending } => {
                // As many requests in flight as the client may hold: wait
                // for an answer to a later one, which frees the earlier
                // (the publisher's backpressure, counted the same way).
                while pending.len() == pending.capacity() {
                    match oldest_answered(pending) {
                        Some(i) if i > 0 => {
                            pending.drain(..i);
                        }
                        Some(_) => {
                            return Err(LinkError::Device(format!(
                                "iceoryx2: {} requests in flight and the oldest still has \
                                 responses unread: more than buffer={} allows",
                                pending.len(),
                                self.o.buffer
                            )));
                        }
                        None => {
                            self.busy.fetch_add(1, Ordering::Relaxed);
                            self.waiter.idle()?;
                        }
                    }
                }
                let mut req = client.loan_slice_uninit(len).map_err(io("loan a request"))?;
                // SAFETY: `len` bytes of the client's shared memory.
                build(unsafe { as_bytes(req.payload_mut()) });
                // SAFETY: `build` wrote over bytes that held values.
                let sent = unsafe { req.assume_init() }.send().map_err(|e| {
                    if aborted || self.abort.is_set() {
                        LinkError::Aborted
                    } else {
                        io("send a request")(e)
                    }
                })?;
                pending.push_back(sent);
            }
            End::Server { current, .. } => {
                let req = current.as_ref().ok_or_else(|| {
                    LinkError::Device(
                        "iceoryx2: the server has no request to answer (a request-response \
                         server sends only responses)"
                            .to_string(),
                    )
                })?;
                answer(req, len, build)
                    .map_err(|e| if self.abort.is_set() { LinkError::Aborted } else { e })?;
            }
        }
        self.waiter.notify()
    }
}

/// What [`ReqResLink::next`] received: a response (host), or a request now
/// held as the server's current one (peer).
enum Incoming {
    Response(Reply),
    Request,
}

/// The index of the oldest pending response with a response waiting.
///
/// Looking oldest first, a response to an older request can land just
/// after its request was looked at and before a younger one's is seen; the
/// server sent it first, so once the younger one is seen (an acquire of
/// what the server released after both) the older one is visible: look
/// again up to the one found.
#[inline]
fn oldest_answered(pending: &VecDeque<Pending>) -> Option<usize> {
    let i = pending.iter().position(Pending::has_response)?;
    Some(pending.iter().take(i).position(Pending::has_response).unwrap_or(i))
}

/// Loans a response to `req` of `len` bytes, lets `build` write it, sends it.
#[inline]
fn answer(req: &Active, len: usize, build: &mut dyn FnMut(&mut [u8])) -> Result<(), LinkError> {
    let mut res = req.loan_slice_uninit(len).map_err(io("loan a response"))?;
    // SAFETY: `len` bytes of the server's shared memory.
    build(unsafe { as_bytes(res.payload_mut()) });
    // SAFETY: `build` wrote over bytes that held values.
    unsafe { res.assume_init() }.send().map_err(io("send a response"))
}

impl Link for ReqResLink {
    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: self.o.max,
            message_boundaries: true,
            zero_copy: true,
            shared_clock: true,
        }
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        self.put(msg.len(), &mut |b| b.copy_from_slice(msg))
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        let got = self.next(len)?;
        buf[..len].copy_from_slice(self.payload(&got));
        Ok(())
    }

    #[inline]
    fn send_with(
        &mut self,
        len: usize,
        _scratch: &mut [u8],
        build: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        self.put(len, build)
    }

    #[inline]
    fn recv_with(
        &mut self,
        len: usize,
        _scratch: &mut [u8],
        inspect: &mut dyn FnMut(&[u8]),
    ) -> Result<(), LinkError> {
        let got = self.next(len)?;
        inspect(self.payload(&got));
        Ok(())
    }

    /// The peer's echo: the request's bytes copied into a loaned response,
    /// request memory to response memory.
    #[inline]
    fn echo(&mut self, len: usize, scratch: &mut [u8]) -> Result<(), LinkError> {
        self.o.check_size(len)?;
        let got = self.next(len)?;
        match (&got, &self.end) {
            (Incoming::Request, End::Server { current: Some(req), .. }) => {
                answer(req, len, &mut |b| b.copy_from_slice(req.payload()))?;
                self.waiter.notify()
            }
            // The host echoing (not what the engine asks): through scratch.
            _ => {
                scratch[..len].copy_from_slice(self.payload(&got));
                drop(got);
                self.put(len, &mut |b| b.copy_from_slice(&scratch[..len]))
            }
        }
    }

    fn counters(&self) -> LinkCounters {
        LinkCounters { tx_busy: self.busy.load(Ordering::Relaxed) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{past_max_is_refused, round_trips};

    #[test]
    fn spin_requests_are_answered_byte_for_byte() {
        round_trips("iceoryx2?service=reqres");
    }

    #[test]
    fn event_requests_are_answered_byte_for_byte() {
        round_trips("iceoryx2?service=reqres&wait=event");
    }

    #[test]
    fn a_request_past_max_is_refused() {
        past_max_is_refused("iceoryx2?service=reqres&max=64");
    }
}
