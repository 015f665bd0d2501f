//! Exercise 103 in the agent: the checker's calls made with the learner's
//! crate (`learner`); each runner lives here between calls, by handle.

use judge_harness::agent_api as api;

include!("api.rs");

/// The learner's model, made by the learner's `Model::new()`: the call ends
/// as the learner's panic when it is not the course's (`layers`, the
/// judge's copy), since `src/model.rs` is given.
impl AgentValue for learner::Model {
    type Wire = Vec<(f32, f32)>;
    fn import(layers: Self::Wire, _: &std::rc::Rc<gpu::remote::Link>) -> Self {
        let model = learner::Model::new();
        assert!(
            model.layers() == layers.as_slice(),
            "your `Model::new()` is not the course's model: `src/model.rs` is given; put it back as the starter has it (`judge reset 103` backs your crate up first)"
        );
        model
    }
}
