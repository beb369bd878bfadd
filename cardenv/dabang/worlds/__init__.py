"""Dabang's public-information sampler: ``sample_worlds(state, seat, n, rng)`` draws ``n``
complete states that agree with everything ``seat`` has seen (``DabangGame.sample_worlds``).

What it reads: ``seat``'s observation at every step of the hand (recorded by replaying the
state's recipe and keeping only that seat's view and what every seat sees: who is asked, the
deal position, the plays), ``seat``'s own cards in the order they were dealt, when ``seat`` is
the dealer, the kitty it picked up and the cards it buried, and, when it gave or took the
tribute, the tribute and the cards given back. Nothing else of the position.

How: each world is a deck (``state_from_deal``) and a history, proposed from a distribution that
already meets the hard constraints, then *replayed* and kept only if every step is legal and
gives ``seat`` the same observation as the real hand did (and the same legal mask now when
``seat`` is to act). So every world is exactly consistent; the proposal only makes acceptance
likely.

The proposal pins what ``seat`` knows (its own deal slots; the big joker at the slot where a
seat was asked to grab; the kitty where it is shown or flipped), and draws the other hidden
cards with the exact weights of a uniform deal: seat by seat, ``hand now + cards played +
jokers buried by 扣王 - cards taken back`` is what the seat was dealt, and the number of deals
that give a seat the multiset ``D`` is proportional to ``1 / prod(D_k!)``. A dynamic programme
over the 54 kinds (state: the cards given so far to each hidden group) samples the hidden hands
from exactly that distribution, restricted by the voids that play showed (a seat that did not
follow a led suit or trump holds none of it now), by the kinds a 死棒 follow's shape says the
seat did not hold exactly 2, 3 or 4 times, by "no joker" where a seat let its 扣王 turn go by
and "a small joker" where it passed holding no big one (``programme._kou_bounds``), by "no big
joker in these slots" for the seats that were not asked to grab, and, with
``bidding="after_deal"``, by "a big joker" / "none" for the seats asked / passed over after the
deal (``view.View._after_deal_round``). The rest (the shape duty's other combinations, the
grabber's trump card, the dealer's big jokers before its grab, a 扣王 pass holding either joker)
is left to the replay's rejection; the order of the kitty flips is drawn among those that turn
up as the real flips did (``arrange._flip_orders``).

Distribution: uniform over the consistent (deal, hidden choices) pairs. Hidden choices are the
dealer's burial when ``seat`` did not see it (drawn as a multiset, buried big jokers first, then
small, then the rest) and, for another seat building a follow, the steps it has taken so far
(dropped: the world stands at the start of that seat's follow, which ``seat`` cannot tell from
where it stands). Rejection from a proposal that is uniform over a superset of the consistent
pairs keeps it uniform.

Later hands (of a match, or an episode that starts from one: options ``dealer``, ``blood``):
a world is the first hand of a game with the same options that starts from the hand's match
situation (``dealer``, ``levels``, ``blood`` = the hand's; a match leaves as many hands to come:
``WorldSampler.later_game``), so ``world.game`` is that game and ``world.results`` is empty
(the earlier hands are history, public in ``state.results``). What a later hand adds:

- declarations: where another seat was asked because a card just dealt enabled a declaration
  (a level card raising its count of a suit above the standing rank, the fourth of a joker),
  that slot holds such a card, and no other slot does; each time the deal looked whether a seat
  could beat the standing declaration (the override round after a declaration, the round after
  the deal: ``view._declare_checks`` rebuilds them from the public asks) the seat could exactly
  when it was asked. After the deal, the kinds (bounds on a seat's dealt count: at least what it
  showed; a seat passed over at the end holds no more of a level card than the standing rank
  and fewer than four of a joker) go into the programme, and each seat's level cards and jokers
  are put in its slots by a second programme over its slots (``slots._special_order``: uniform
  over the orders that give the same asks). During the deal, the special cards each seat was
  dealt so far are drawn first, exactly (``deal._deal_allocations``: per seat the number of
  orders that give its asks, times the ways to put the rest in the slots not dealt yet).
- the tribute: seen by the giver and the dealer (their cards are pinned); for the other two, the
  programme draws it as an extra group, in the tribute's order of kinds (strongest non-point
  first), with the rule that the giver kept no copy of a kind before the tribute was complete;
  a return the seat did not see (option ``tribute_return``) is another extra group, the
  dealer's choice of cards (a hidden choice, like the burial).
- the kitty: shown after a declaration (pinned, in any order) or drawn when nobody declared:
  the drawn cards lie where the world's own generator will draw them (``arrange._kitty_draw``),
  the rest is hidden like the first hand's; while the dealer gives cards back it still lies
  there (a group of its own); 干锅 leaves it untouched.

Distribution in later hands: uniform over the consistent (deal, hidden choices) pairs too. The
programme over the kinds weighs a seat's dealt multiset by all its orders in the seat's slots;
the deal, only by those that give the seat its asks. So each seat's dealt cards are kept with
probability (the share of its level-card and joker placements that give its asks) / (the
largest such share): rejection whose acceptance is the missing weight
(``programme._keep_orders``, with the hidden hands; ``arrange._arrange_later`` for the dealer's
deal), exact; measured against enumeration in docs/rules/dabang.md. Slow case: a return the
seat did not see adds two extra dimensions to the programme (a second or more per call at the
burial).

Covered: every position of every hand, every phase, every seat as viewer, every option
(``episode``, ``dealer``, ``blood`` incl. ``"random"``, ``levels``, ``follow``, ``bidding``,
``tribute_return``). A redeal in a later hand (a kitty of eight jokers nobody declared on) is not
modelled: its worlds are not found (``StateError``), about once in 10^9 hands.

The modules (``mod._name`` above: that name in module ``mod``):

- ``view``: what the seat has seen (``View``), and the declaration looks of a later hand's deal;
- ``proposal``: ``Proposal``, one position's proposal, built of the four parts below; it draws a
  world and replays it;
- ``deal``: the decks while the hand is being dealt (and the first hand's big-joker rules);
- ``programme``: the hidden hands after the deal, by the programme over the kinds;
- ``arrange``: those hands put into deal slots, the kitty and its flips, the hidden choices;
- ``slots``: a later hand's level cards and jokers in a seat's deal slots (its asks);
- ``common``: small shared pieces (the kitty's size, log factorials, the special kinds).

Here: ``WorldSampler``, which owns what is kept between calls (the proposals of the last few
positions asked, the games of later hands' worlds, the tries of the last call), the sampler
``SAMPLER`` that ``sample_worlds`` uses, and ``sample_worlds`` itself.
"""

from __future__ import annotations

from cardenv.core.checks import check_int
from cardenv.core.errors import StateError
from cardenv.core.worlds import check_sample_args
from cardenv.dabang.worlds.proposal import Proposal
from cardenv.dabang.worlds.view import View, later_options

CACHE_SIZE = 8  # positions whose proposals are kept: a search asks again at the same position


class WorldSampler:
    """Samples worlds (``sample``), keeping what it built for the next calls: the proposals of
    the last ``cache_size`` positions asked (most recent last), the games later hands' worlds
    are states of (one per match situation), and how many proposals its last call that found
    its worlds drew (``last_tries``, for the speed and acceptance measures; ``None`` before)."""

    def __init__(self, cache_size: int = CACHE_SIZE):
        self.cache_size = cache_size
        self.proposals: dict = {}  # recipe and seat -> Proposal
        self.later_games: dict = {}  # options -> the game a later hand's worlds are states of
        self.last_tries: int | None = None

    def sample(self, game, state, seat, n, rng, *, max_tries: int | None = None) -> list:
        """``n`` states that ``seat`` cannot tell from ``state`` (``sample_worlds``)."""
        seat, n = check_sample_args(game, state, seat, n, rng)
        if max_tries is not None:
            max_tries = check_int(max_tries, "dabang.sample_worlds: max_tries", 0, 10 ** 9,
                                  error=ValueError)
        if n == 0:
            return []
        proposal = self.proposal(game, state, seat)
        proposal.begin(n)
        worlds = []
        tries = 0
        limit = 1000 + 200 * n if max_tries is None else max_tries
        while len(worlds) < n:
            if tries >= limit:
                raise StateError(f"dabang.sample_worlds: found {len(worlds)} of {n} consistent "
                                 f"worlds in {tries} proposals (max_tries={limit})")
            tries += 1
            world = proposal.world(rng)
            if world is not None:
                worlds.append(world)
        self.last_tries = tries
        return worlds

    def proposal(self, game, state, seat) -> Proposal:
        """The proposal for ``seat`` at ``state``, built once per position (its recipe: options,
        seed, given deal, history) and kept for the next few calls."""
        key = (id(game), tuple(sorted(game.options.items())), state.seed, repr(state.given_deal),
               tuple(state.history), seat)
        proposal = self.proposals.pop(key, None)
        if proposal is None:
            world_game = None if state.first_hand else self.later_game(game, state)
            proposal = Proposal(View(game, state, seat, world_game))
        self.proposals[key] = proposal  # (most recent last)
        while len(self.proposals) > self.cache_size:
            self.proposals.pop(next(iter(self.proposals)))
        return proposal

    def later_game(self, game, state):
        """The game whose first hand is ``state``'s hand (``view.later_options``), one per set
        of options."""
        opts = later_options(game, state)
        key = tuple(sorted(opts.items()))
        if key not in self.later_games:
            self.later_games[key] = type(game)(**opts)
        return self.later_games[key]


SAMPLER = WorldSampler()  # the one ``DabangGame.sample_worlds`` uses


def sample_worlds(game, state, seat, n, rng, *, max_tries: int | None = None) -> list:
    """``n`` states that ``seat`` cannot tell from ``state`` (see the package docstring), drawn
    by ``SAMPLER`` (whose ``last_tries`` then says how many proposals it drew).

    ``max_tries`` bounds the proposals drawn (default ``1000 + 200 * n``); ``StateError`` if
    they run out first."""
    return SAMPLER.sample(game, state, seat, n, rng, max_tries=max_tries)
