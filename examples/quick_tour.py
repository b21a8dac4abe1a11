"""A quick tour of the research environments (no notebook needed).

    .venv/bin/python examples/quick_tour.py

1. the action space and observation vector, 2. a PettingZoo parallel game, 3. the same game
turn by turn (AEC), 4. Gymnasium against bots, 5. OpenSpiel.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]

import gonuts.envs
import gonuts.envs.openspiel  # noqa: F401 - registers python_gonuts
from gonuts.actions import TAKE_FROM_BASE
from gonuts.cards import KIND_BY_ID
from gonuts.envs import encoding
from gonuts.envs.pettingzoo import env, parallel_env


def main() -> None:
    rng = np.random.default_rng(0)

    print("== 1. Encoding")
    print(f"actions: Discrete({encoding.NUM_ENV_ACTIONS}); observation: {encoding.OBS_SIZE} floats")
    for name, size in encoding.OBS_SECTIONS:
        print(f"  {name:15} {size:4}")
    example = TAKE_FROM_BASE + 1 * encoding.K + KIND_BY_ID["glazed"].index
    print(f"  e.g. id {example} = {encoding.describe_env_action(example)!r}: +1 is the next seat")

    print("\n== 2. PettingZoo parallel: 3 players, random legal actions")
    penv = parallel_env(players=3, render_mode="ansi")
    obs, _ = penv.reset(seed=42)
    steps = 0
    while penv.agents:
        acting = {a: o for a, o in obs.items() if o["action_mask"].any()}
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in acting.items()}
        if steps < 3:
            text = {a: encoding.describe_env_action(x) for a, x in actions.items()}
            print(f"  step {steps}: {text}")
        obs, rewards, *_ = penv.step(actions)
        steps += 1
    print(f"  {steps} steps; rewards {rewards}")
    print(penv.render())  # seats from 0, as the agents player_0 … and RECORD.md number them

    print("\n== 3. PettingZoo AEC: one agent at a time")
    aec = env(players=3)
    aec.reset(seed=42)
    turns = 0
    for _agent in aec.agent_iter():
        ob, reward, done, _, _ = aec.last()
        aec.step(None if done else int(rng.choice(np.flatnonzero(ob["action_mask"]))))
        turns += 1
    print(f"  {turns} AEC turns (the last {aec.max_num_agents} hand out the final rewards)")

    print("\n== 4. Gymnasium: gonuts/GoNuts-v0, seat 0 against 3 random bots")
    genv = gymnasium.make("gonuts/GoNuts-v0", players=4, seat=0, opponents="random")
    gob, info = genv.reset(seed=1)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(gob["action_mask"])))
        gob, reward, done, _, info = genv.step(action)
    print(f"  scores by seat {info['scores']}, winning seats {info['winners']}, reward {reward}")

    print("\n== 5. OpenSpiel: python_gonuts with chance, simultaneous and sequential nodes")
    game = pyspiel.load_game("python_gonuts", {"players": 3})
    state = game.new_initial_state()
    kinds = {"chance": 0, "simultaneous": 0, "sequential": 0}
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            kinds["chance"] += 1
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(3)])
            kinds["simultaneous"] += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            kinds["sequential"] += 1
    print(f"  nodes {kinds}; returns {state.returns()}")
    print("  observation string of player 0:", state.observation_string(0)[:100], "…")


if __name__ == "__main__":
    main()
