"""What the shipped conversations talk about: story kinds, each with its own wording.

A kind is told by one speaker (``{S}``, to the listener ``{L}``) in the first person.
Every kind is told twice in a conversation with different details (two trips, two
pets, two races), by the same speaker or by each, so that a question about one
finds the other on the same topic: lexical overlap alone does not pick the answer.

Fields of a kind:

- ``params``: pools; each telling draws one value from each, different from the
  other telling's where it can.
- ``say``: first-person wordings; ``{when}`` is a relative time ("last Saturday")
  the set's builder fills and dates from the session's date.
- ``single``: (question, answer) about one detail; ``{S}`` the teller's name,
  ``{their}`` the teller's possessive.
- ``temporal``: questions whose answer is the event's date (session date + the
  relative phrase); one is asked, naming the event by a detail or by its name.
- ``both``: a question needing both tellings (two evidence turns); ``{who}`` is "the
  two of them" or the teller's name when one person told both.
- ``missing``: a question on the same topic about a detail the conversation never
  gives (no answer by construction: no wording anywhere states it).
- ``mood``: which reactions fit (good, bad, plain).
"""

from __future__ import annotations

from typing import Any

Kind = dict[str, Any]

KINDS: list[Kind] = [
    {"name": "trip", "mood": "good",
     "params": {"dest": ["Lisbon", "Kyoto", "Reykjavik", "Oaxaca", "Tbilisi", "Ghent",
                         "Hobart", "Valparaiso", "Ljubljana"],
                "rel": ["sister", "cousin", "old roommate", "uncle", "best friend",
                        "brother-in-law"],
                "did": ["ate our way through the night markets", "walked the whole old "
                        "town twice", "took a cooking class in a stranger's kitchen",
                        "rented bikes and got hopelessly lost", "went to a hot spring "
                        "every evening", "hiked up to a monastery at dawn"],
                "days": ["four", "five", "six", "eight"]},
     "say": ["Back home at last! {when} I flew back from {days} days in {dest} with my "
             "{rel}. We {did}.",
             "I never told you about {dest}, did I? My {rel} and I went for {days} days "
             "and we {did}. Landed {when}.",
             "{when} I got home from {dest}. {days} days with my {rel}, and honestly we "
             "{did}, it was the best part."],
     "single": [("Which city did {S} visit with {their} {rel}?", "{dest}"),
                ("What did {S} and {their} {rel} do on the holiday abroad?", "{did}")],
     "temporal": ["When did {S} return from {dest}?",
                  "When did {S} get home from the trip with {their} {rel}?"],
     "both": ("Which two places did {who} travel to?", "{dest1} and {dest2}"),
     "missing": ["How much did {S}'s flights to {dest} cost?",
                 "Which hotel did {S} stay at in {dest}?"]},
    {"name": "pet", "mood": "good",
     "params": {"species": ["puppy", "kitten", "rabbit", "retired greyhound", "parrot",
                            "pair of guinea pigs"],
                "pname": ["Biscuit", "Juniper", "Moss", "Pickle", "Sable", "Tofu",
                          "Waffles", "Clementine"],
                "where": ["a shelter two towns over", "a neighbour whose cat had a "
                          "litter", "a rescue that posts on the community board",
                          "a farm that was rehoming animals"],
                "look": ["grey with one white paw", "ginger and very fluffy",
                         "black with a crooked ear", "spotted like a cow"]},
     "say": ["Big news: we brought home a {species} {when}! We named it {pname}; it is "
             "{look} and came from {where}.",
             "Meet {pname}, our new {species}. We picked it up {when} from {where}. It's "
             "{look}.",
             "So, {when} I finally did it and adopted a {species} from {where}. {pname} "
             "is {look} and already rules the house."],
     "single": [("What did {S} name the new {species}?", "{pname}"),
                ("Where did {pname} come from?", "{where}")],
     "temporal": ["When did {S} bring {pname} home?",
                  "On what date did the {species} join {S}'s household?"],
     "both": ("What animals did {who} adopt?", "a {species1} ({pname1}) and a "
              "{species2} ({pname2})"),
     "missing": ["What food does {S} give {pname}?",
                 "How old was {pname} when {S} adopted it?"]},
    {"name": "race", "mood": "good",
     "params": {"race": ["harbour half marathon", "charity 10k", "trail race up the "
                         "ridge", "night relay", "duathlon by the reservoir"],
                "time": ["1 hour 52 minutes", "54 minutes", "just under two and a half "
                         "hours", "48 minutes flat", "1 hour 37 minutes"],
                "cause": ["the children's hospice", "a food bank", "mental health "
                          "support lines", "the local lifeboat crew"]},
     "say": ["My legs are still sore: {when} I did the {race}. Finished in {time}, and "
             "the money went to {cause}.",
             "Did the {race} {when}! {time}. We were raising money for {cause}.",
             "{when} was the {race}. Crossed the line after {time}, all for {cause}."],
     "single": [("How long did {S} take to finish the {race}?", "{time}"),
                ("Which cause was {S}'s {race} raising money for?", "{cause}")],
     "temporal": ["When did {S} take part in the {race}?",
                  "When was the run {S} did for {cause}?"],
     "both": ("Which running events did {who} take part in?", "the {race1} and the "
              "{race2}"),
     "missing": ["What place did {S} come in the {race}?",
                 "Who did {S} train with for the {race}?"]},
    {"name": "concert", "mood": "good",
     "params": {"band": ["The Paper Kites", "a Malian blues trio", "the city brass "
                         "orchestra", "an old punk band reunited for one night",
                         "a jazz pianist from Havana"],
                "venue": ["the old tram depot", "a tiny basement bar", "the open-air "
                          "stage in the park", "the cathedral"],
                "with": ["my dad", "two friends from work", "my neighbour", "my partner"]},
     "say": ["{when} I saw {band} at {venue} with {with}. Goosebumps the whole time.",
             "Guess where I was {when}? {venue}, watching {band}. Went with {with}.",
             "Went to see {band} {when}. It was at {venue}, {with} came along."],
     "single": [("Where did {S} see {band} play?", "{venue}"),
                ("Who went with {S} to see {band}?", "{with}")],
     "temporal": ["When did {S} see {band} live?",
                  "When was {S} at {venue} for a show?"],
     "both": ("Which live shows did {who} go to?", "{band1} and {band2}"),
     "missing": ["How much were the tickets for {band}?"]},
    {"name": "course", "mood": "plain",
     "params": {"course": ["pottery", "conversational Italian", "welding", "first aid",
                           "bookkeeping", "life drawing", "beekeeping"],
                "day": ["Tuesday", "Wednesday", "Thursday", "Monday"],
                "place": ["the community college", "the library annexe", "a studio "
                          "above a bike shop", "the town hall"]},
     "say": ["I signed up for a {course} course {when}. It runs every {day} evening at "
             "{place}.",
             "{when} I enrolled in {course}. {day}s after work, at {place}.",
             "New hobby alert: {course}! Started {when}, {day} nights, {place}."],
     "single": [("What evening does {S}'s {course} class meet?", "{day}"),
                ("Where is {S}'s {course} class held?", "{place}")],
     "temporal": ["When did {S} start the {course} class?",
                  "When did {S} begin the {day} evening lessons?"],
     "both": ("What classes did {who} sign up for?", "{course1} and {course2}"),
     "missing": ["What is the name of {S}'s {course} teacher?",
                 "How many people are in {S}'s {course} class?"]},
    {"name": "injury", "mood": "bad",
     "params": {"part": ["left ankle", "wrist", "shoulder", "knee", "thumb", "lower back"],
                "doing": ["stepping off a curb", "lifting a sofa", "playing five-a-side",
                          "slipping on wet leaves", "carrying the shopping up the stairs"],
                "fix": ["physio twice a week", "a brace for a month", "ice and rest",
                        "a week off work"]},
     "say": ["Ugh, I hurt my {part} {when}, {doing}. The doctor says {fix}.",
             "{when} I managed to twist my {part} {doing}. So it's {fix} for me.",
             "Hobbling around: {part} gave out {when} while {doing}. Prescription is "
             "{fix}."],
     "single": [("How did {S} hurt {their} {part}?", "{doing}"),
                ("What did the doctor recommend for {S}'s {part}?", "{fix}")],
     "temporal": ["When did {S} injure {their} {part}?",
                  "When did {S} get hurt {doing}?"],
     "both": ("Which injuries did {who} mention?", "a hurt {part1} and a hurt {part2}"),
     "missing": ["Which hospital did {S} go to for the {part}?"]},
    {"name": "book", "mood": "plain",
     "params": {"title": ["The Salt Road", "Nine Winters", "A Map of Small Hours",
                          "The Glass Orchard", "Tidewater", "Letters to the Lighthouse"],
                "about": ["a ferry captain who loses her memory", "two brothers "
                          "rebuilding a mill", "a cartographer in the Arctic", "a "
                          "choir in a mining town", "a detective who only works nights"],
                "from": ["my aunt", "a colleague", "my book club", "the bookseller "
                         "downstairs"]},
     "say": ["Reading {title} right now, it's about {about}. {from} recommended it.",
             "I just finished {title}! {from} put me onto it: it follows {about}.",
             "Have you read {title}? It's about {about}, and {from} lent it to me."],
     "single": [("Who recommended {title} to {S}?", "{from}"),
                ("What is {title} about?", "{about}")],
     "both": ("Which books did {who} talk about reading?", "{title1} and {title2}"),
     "missing": ["Who wrote {title}?", "How many pages is {title}?"]},
    {"name": "cooking", "mood": "good",
     "params": {"dish": ["a lamb tagine", "mushroom risotto", "dumplings from scratch",
                         "a three-layer carrot cake", "Sri Lankan fish curry",
                         "homemade pasta"],
                "occasion": ["an anniversary dinner", "a housewarming", "a farewell party",
                             "the office potluck", "a christening"],
                "guests": ["eight", "twelve", "five", "fifteen"]},
     "say": ["{when} I cooked {dish} for {occasion}, {guests} people. Nothing left over!",
             "Made {dish} {when} for {occasion}. Fed {guests} and nobody complained.",
             "So for {occasion} {when} I was in charge of {dish}, for {guests} guests."],
     "single": [("What did {S} cook for {occasion}?", "{dish}"),
                ("How many guests ate {S}'s {dish}?", "{guests}")],
     "temporal": ["When did {S} make {dish}?",
                  "When did {S} feed {guests} people at {occasion}?"],
     "both": ("What dishes did {who} cook for gatherings?", "{dish1} and {dish2}"),
     "missing": ["Where did {S} buy the ingredients for {dish}?"]},
    {"name": "garden", "mood": "plain",
     "params": {"plants": ["tomatoes and runner beans", "lavender along the fence",
                           "three apple trees", "a herb spiral", "sunflowers for the "
                           "kids", "garlic for next summer"],
                "where": ["the allotment", "the balcony", "the back yard", "the "
                          "shared garden behind the flats"]},
     "say": ["Spent {when} planting {plants} in {where}. My back hates me.",
             "{when} I finally got {plants} into {where}.",
             "Gardening update: {plants} went into {where} {when}."],
     "single": [("What did {S} plant in {where}?", "{plants}")],
     "temporal": ["When did {S} plant {plants}?",
                  "When was {S} last digging in {where}?"],
     "both": ("What did {who} plant?", "{plants1} and {plants2}"),
     "missing": ["Which garden centre did {S} buy the plants from?"]},
    {"name": "gift", "mood": "good",
     "params": {"gift": ["a restored typewriter", "a hand-knitted scarf", "a star map "
                         "of the night they met", "a sourdough starter and a proving "
                         "basket", "a vintage film camera", "a bird feeder I built"],
                "for": ["grandmother", "best friend", "godson", "partner", "boss"],
                "why": ["a ninetieth birthday", "a new job", "a graduation", "passing "
                        "the driving test"]},
     "say": ["I gave my {for} {gift} for {why}. Tears, actual tears.",
             "For {why} I got my {for} {gift}. Went down really well.",
             "What do you think of this: {gift}, for my {for}, for {why}? Already gave "
             "it, so too late if not!"],
     "single": [("What present did {S} give {their} {for}?", "{gift}"),
                ("What was {S}'s gift of {gift} celebrating?", "{why}")],
     "both": ("What presents did {who} mention giving?", "{gift1} and {gift2}"),
     "missing": ["How much did {S} spend on {gift}?"]},
    {"name": "wedding", "mood": "good",
     "params": {"couple": ["Rosa and Ike", "Fen and Marco", "Jules and Ash", "Bea and Tom",
                           "Sami and Dara"],
                "venue": ["a barn by the lake", "a lighthouse", "a botanical garden",
                          "a registry office and a chip shop after", "a mountain hut"],
                "role": ["gave a reading", "was the photographer by accident", "ran "
                         "the playlist", "baked the cake"]},
     "say": ["{when} was {couple}'s wedding at {venue}. I {role}!",
             "The wedding {when}, {couple}'s, was at {venue}, and I {role}.",
             "Just back from {couple}'s wedding {when}. {venue}, can you believe it? I "
             "{role}."],
     "single": [("Where did {couple} get married?", "{venue}"),
                ("What did {S} do at {couple}'s wedding?", "{S} {role}.")],
     "temporal": ["When was {couple}'s wedding?",
                  "When did {S} go to the ceremony at {venue}?"],
     "both": ("Whose weddings did {who} attend?", "{couple1} and {couple2}"),
     "missing": ["What song did {couple} have for their first dance?"]},
    {"name": "car", "mood": "bad",
     "params": {"trouble": ["the clutch went", "a tyre blew out", "the battery died",
                            "the exhaust fell half off", "a warning light would not go "
                            "off"],
                "place": ["on the motorway", "in the supermarket car park", "halfway up "
                          "a hill", "outside my mum's house"],
                "bill": ["420 pounds", "90 pounds", "nearly 700 pounds", "160 pounds"]},
     "say": ["Car trouble {when}: {trouble} {place}. The garage bill was {bill}.",
             "{when} {trouble}, {place} of all places. {bill} to fix.",
             "Don't ask about the car. {when} {trouble} {place}, {bill} later it runs."],
     "single": [("What went wrong with {S}'s car {place}?", "{trouble}"),
                ("How much was {S}'s garage bill after {trouble}?", "{bill}")],
     "temporal": ["When did {S}'s car break down {place}?",
                  "When did {S} run up a {bill} garage bill?"],
     "both": ("What car problems did {who} have?", "{trouble1}; {trouble2}"),
     "missing": ["What make is {S}'s car?"]},
    {"name": "volunteer", "mood": "good",
     "params": {"org": ["the food bank", "a reading club for refugees", "the animal "
                        "shelter", "a night shelter", "the hospital radio"],
                "task": ["sorting donations", "teaching English", "walking dogs",
                         "cooking breakfasts", "presenting a request show"],
                "often": ["every Saturday morning", "twice a month", "on Sunday nights",
                          "once a week"]},
     "say": ["I started volunteering at {org} {when}, {task}, {often}.",
             "{when} was my first shift at {org}. I'm {task}, {often}.",
             "Been meaning to say: I'm helping at {org} now, {task} {often}. Began "
             "{when}."],
     "single": [("What does {S} do as a volunteer at {org}?", "{task}"),
                ("How often does {S} volunteer at {org}?", "{often}")],
     "temporal": ["When did {S} start volunteering at {org}?",
                  "When did {S} first go {task} as a volunteer?"],
     "both": ("Which organisations did {who} start volunteering at?", "{org1} and {org2}"),
     "missing": ["Who runs {org} where {S} volunteers?"]},
    {"name": "music", "mood": "plain",
     "params": {"instr": ["cello", "banjo", "drums", "piano", "trumpet", "ukulele"],
                "teacher": ["Mr Okafor", "a retired session player called Wyn",
                            "a student from the conservatoire", "Mrs Lindqvist"],
                "goal": ["play at my sister's wedding", "join a ceilidh band", "get "
                         "through grade three", "busk once, just once"]},
     "say": ["I've started {instr} lessons with {teacher}. The goal is to {goal}.",
             "Lessons update: {instr}, weekly, with {teacher}. I want to {goal}.",
             "Promise not to laugh: I'm learning the {instr}. {teacher} teaches me, and "
             "one day I'll {goal}."],
     "single": [("Which instrument is {S} learning with {teacher}?", "{instr}"),
                ("What does {S} hope to do with the {instr}?", "{goal}")],
     "both": ("Which instruments did {who} take up?", "{instr1} and {instr2}"),
     "missing": ["How much does {S} pay for {instr} lessons?"]},
    {"name": "restaurant", "mood": "good",
     "params": {"place": ["Little Anchor", "Casa Verde", "The Copper Pot", "Saffron "
                          "Yard", "Kiln", "Bao Street"],
                "food": ["Georgian dumplings", "wood-fired flatbreads", "a twelve-course "
                         "tasting menu", "Ethiopian injera platters", "Peruvian "
                         "ceviche"],
                "with": ["my brother", "colleagues", "an old flatmate", "my parents"]},
     "say": ["{when} we went to {place} for {food}. Went with {with}, amazing.",
             "Tried {place} {when}. They do {food}. Took {with}.",
             "If you're ever near {place}, go for the {food}. I was there {when} with "
             "{with}."],
     "single": [("What food does {place} serve?", "{food}"),
                ("Who did {S} go to {place} with?", "{with}")],
     "temporal": ["When did {S} eat at {place}?",
                  "When did {S} have {food} with {with}?"],
     "both": ("Which restaurants did {who} try?", "{place1} and {place2}"),
     "missing": ["What did the bill at {place} come to?"]},
    {"name": "lost", "mood": "bad",
     "params": {"item": ["house keys", "wallet", "library card", "good sunglasses", "phone",
                         "reading glasses"],
                "place": ["on the number 12 bus", "at the swimming pool", "in a taxi",
                          "at the farmers' market", "at the cinema"],
                "end": ["a stranger handed it in", "never saw it again", "found it in "
                        "my coat lining days later", "the driver posted it back"]},
     "say": ["{when} I lost my {item} {place}. In the end {end}.",
             "Classic me: my {item}, gone, {place}, {when}. {end}, though.",
             "{when} I left my {item} {place}. Long story short, {end}."],
     "single": [("Where did {S} lose {their} {item}?", "{place}"),
                ("What happened after {S} lost {their} {item}?", "{end}")],
     "temporal": ["When did {S} lose {their} {item}?",
                  "When did {S} leave something behind {place}?"],
     "both": ("What things did {who} lose?", "{item1} and {item2}"),
     "missing": ["How much money was in {S}'s lost item?"]},
    {"name": "exam", "mood": "good",
     "params": {"exam": ["the driving test", "a sommelier exam", "the accountancy "
                         "finals", "a lifeguard certificate", "the B2 Spanish exam"],
                "tries": ["first", "second", "third"],
                "mark": ["with only two minors", "with a distinction", "by a single "
                         "point", "with the top mark in the room"]},
     "say": ["I passed {exam} {when}, on my {tries} try, {mark}!",
             "Results came {when}: {exam}, passed, {mark}. {tries} attempt!",
             "{when} I sat {exam} for the {tries} time and passed {mark}."],
     "single": [("On which attempt did {S} pass {exam}?", "the {tries}"),
                ("How well did {S} do in {exam}?", "passed {mark}")],
     "temporal": ["When did {S} pass {exam}?",
                  "When did {S} pass {mark}?"],
     "both": ("Which exams did {who} pass?", "{exam1} and {exam2}"),
     "missing": ["Who was {S}'s examiner for {exam}?"]},
    {"name": "film", "mood": "plain",
     "params": {"film": ["a Korean heist film", "a documentary about octopuses",
                         "an old Hitchcock at the retro cinema", "a three-hour war epic",
                         "a French animated film"],
                "verdict": ["slept through half of it", "cried at the end", "want to "
                            "see it again", "thought it was overrated"],
                "where": ["the drive-in", "the retro cinema", "a friend's projector",
                          "the multiplex"]},
     "say": ["Watched {film} at {where} {when}. I {verdict}.",
             "{when}: {film}, at {where}. Verdict? I {verdict}.",
             "Saw {film} {when}, at {where}, and I {verdict}."],
     "single": [("What did {S} think of {film}?", "{S} {verdict}."),
                ("Where did {S} watch {film}?", "{where}")],
     "temporal": ["When did {S} watch {film}?",
                  "When was {S} at {where} for a film?"],
     "both": ("Which films did {who} watch?", "{film1} and {film2}"),
     "missing": ["Who directed {film}?"]},
]

# A relative, introduced once, named later without the relation: multi-hop chains.
RELATIVES = {
    "rel": ["sister", "brother", "aunt", "cousin", "uncle"],
    "rname": {"she": ["Imke", "Odette", "Lulu", "Nadia", "Wren"],
              "he": ["Ravi", "Caspar", "Teodor", "Bram", "Emil"]},
    "city": ["Bristol", "Marseille", "Cork", "Bergen", "Leipzig", "Halifax"],
    "job": ["a tram driver", "a vet", "a court stenographer", "a piano tuner",
            "a glassblower", "a midwife"],
    "intro": ["My {rel} {rname} lives in {city}; {pro} works as {job}.",
              "You haven't met {rname}, my {rel}? {pro_cap} is {job}, out in {city}.",
              "My {rel} is {rname}: {job}, based in {city} these days."],
    "event": ["got engaged on a ferry", "broke a leg skiing", "opened a tiny bakery",
              "won a pub quiz league", "adopted twins"],
    "news": ["Guess what, {rname} {event}!", "News from {rname}: {pro} {event}.",
             "{rname} rang {when}. {pro_cap} {event}, no warning at all."],
    "q": [("What does the relative of {S} who {event} do for work?", "{job}"),
          ("Which city does the person who {event} live in?", "{city}")],
}

# A plan that changes: said once, changed later; the question asks how it ended.
PLANS = [
    {"topic": "kitchen", "first": ["We're painting the kitchen {a}.",
                                   "Decided on {a} for the kitchen walls."],
     "then": ["Change of plan, the kitchen is going to be {b} after all.",
              "Forget {a}: the kitchen ended up {b}."],
     "values": ["mustard yellow", "sage green", "terracotta", "navy", "off-white"],
     "q": "What colour did {S} paint the kitchen in the end?",
     "q2": "How did {S}'s plan for the kitchen walls change?"},
    {"topic": "holiday", "first": ["Summer plan: a week camping in {a}.",
                                   "We booked {a} for the summer break."],
     "then": ["Summer's changed, we cancelled and we're going to {b} instead.",
              "The summer trip moved: {b} now, not {a}."],
     "values": ["the Highlands", "Brittany", "the Dolomites", "Cornwall", "Sardinia"],
     "q": "Where is {S} going for the summer break in the end?",
     "q2": "What was {S}'s first summer plan and what replaced it?"},
    {"topic": "party", "first": ["The birthday do will be at {a}.",
                                 "I'm holding my birthday at {a}."],
     "then": ["Birthday's moved to {b}, the first place fell through.",
              "New venue for my birthday: {b}."],
     "values": ["the bowling alley", "a karaoke bar", "the rooftop bar", "the boathouse",
                "a climbing gym"],
     "q": "Where did {S}'s birthday party finally take place?",
     "q2": "Where was {S}'s birthday first planned and where did it move?"},
    {"topic": "job", "first": ["I accepted an offer as {a}.",
                               "Starting next month as {a}!"],
     "then": ["The first job fell through. I'm going to be {b} instead.",
              "Plot twist: I took another offer, {b}."],
     "values": ["a data analyst at the port", "a junior architect",
                "a paramedic trainee", "a museum archivist", "a sound engineer"],
     "q": "What job did {S} end up taking?",
     "q2": "Which job offer did {S} accept first, and which did {S} take instead?"},
]
