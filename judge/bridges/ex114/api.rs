api! {
    objects {
        /// A block the learner's allocator handed out, which lives in the
        /// agent.
        pub struct Block {
            /// The learner's `Block::addr`: the block's device address.
            pub fn addr(&self) -> u64;
            /// The learner's `Block::bytes`: the block's size.
            pub fn bytes(&self) -> usize;
        }
        /// The learner's stream-ordered allocator, which lives in the agent
        /// with every block it hands out.
        pub struct StreamAllocator {
            /// The learner's `StreamAllocator::new`, in the agent, owned by
            /// the judge's stream `owner`.
            pub fn new(owner: &Stream) -> Self;
            /// The learner's `StreamAllocator::malloc`, in the agent.
            pub fn malloc(&mut self, bytes: usize) -> Result<Block>;
            /// The learner's `StreamAllocator::record_stream`, in the agent:
            /// `block` is used on the judge's `stream` too.
            pub fn record_stream(&mut self, block: &mut Block, stream: &Stream);
            /// The learner's `StreamAllocator::free`, in the agent.
            pub fn free(&mut self, block: Block) -> Result<()>;
        }
    }
}
