"""Deterministic natural-ish prose for the extraction-quality corpus (benchmarks/make_quality_pages.py).

A small grammar: topic lexicons (subjects, verbs, objects, organisations, places, people) and
about seventy sentence patterns in several registers (news, blog, forum, docs, comments,
marketing). Sentences are varied enough that 4-word shingles are mostly unique across a page,
which is what a shingle-based score needs: repeated filler ("lorem ipsum") would make every
extractor look alike.

Everything takes a ``random.Random`` so a seed fixes the output.
"""

from __future__ import annotations

import random

FIRST = ("Amara Maria Jonas Priya Tomasz Keiko Lucia Samuel Ingrid Mateo Fatima Oliver Chen Hannah Diego "
         "Aisha Lars Noor Rafael Elena Kwame Sofia Pavel Yuki Grace Emeka Julia Arjun Marta Felix Leila "
         "Viktor Rosa Dmitri Ana Bruno Zainab Henrik Mei Tobias Clara Omar Nadia Hugo Irene Kofi").split()
LAST = ("Okafor Lindqvist Haddad Nakamura Kowalski Fernandes Brennan Osei Delgado Novak Petersen Rahman "
        "Moreau Schmidt Alvarez Tanaka Mensah Costa Ivanova Gallagher Bianchi Weber Sato Achebe Romero "
        "Hoffmann Nguyen Castillo Jensen Kapoor Duarte Fischer Mwangi Larsen Volkov Ortega Baptiste").split()
PLACES = ("Lisbon|Nairobi|Rotterdam|Osaka|Quito|Tampere|Gdansk|Cape Town|Montreal|Adelaide|Porto|Kraków|"
          "Bergen|Lyon|Accra|Valparaíso|Hanoi|Leeds|Bilbao|Tallinn|Dundee|Winnipeg|Cork|Turin|Aarhus|"
          "Ljubljana|Seville|Utrecht|Brno|Halifax|Malmö|Graz|Tucson|Kyoto|Mombasa|Cusco|Split").split("|")
ROLES = ("an analyst|a senior researcher|the director|a spokesperson|an economist|a professor|the head of policy|"
         "a field engineer|a programme manager|a data scientist|the chief executive|a lecturer|an adviser|"
         "a board member|a technician|the lead author").split("|")
TIMES = ("last year|in March|over the past decade|since 2019|during the winter|earlier this month|"
         "in the second quarter|by the end of the summer|within two years|in the early 1990s|this spring|"
         "after the pandemic|over three seasons|before the election|in recent weeks|for most of 2023").split("|")
CONNECTIVES = ("However|Meanwhile|Even so|By contrast|In practice|At the same time|For now|Still|"
               "In other words|As a result|On the other hand|Crucially|Put simply|Until then|Elsewhere").split("|")
ADJ = ("modest|sharp|unexpected|gradual|costly|promising|uneven|significant|temporary|lasting|ambitious|"
       "cautious|measurable|striking|persistent|limited|broad|narrow|surprising|steady|fragile|robust").split("|")

TOPICS: dict[str, dict[str, list[str]]] = {
    "energy": dict(
        subj="the grid operator|regional utilities|offshore wind farms|the energy regulator|battery makers|"
             "rooftop solar installers|the national transmission company|heat pump suppliers|municipal "
             "heating networks|hydrogen start-ups|coal plant owners|the storage industry".split("|"),
        verb="expanded|postponed|doubled|cut|financed|connected|retired|tested|approved|curtailed|upgraded|"
             "subsidised|audited|reported".split("|"),
        obj="its capacity auction|the interconnector to the mainland|peak demand forecasts|a pilot of "
            "vehicle-to-grid charging|the spot price cap|storage contracts for the winter|new substations|"
            "a tariff for night-time charging|the decommissioning schedule|its emissions targets|"
            "feed-in payments|spare gas turbines|the planning backlog|curtailment compensation".split("|"),
        org="the Energy Transition Institute|GridWatch|the Northern Power Cooperative|Helios Analytics|"
            "the Clean Heat Association|Baltic Cable Partners|the Renewable Storage Council".split("|"),
        thing="megawatts|households|turbines|substations|kilowatt-hours|charging points|tonnes of CO2".split("|"),
    ),
    "health": dict(
        subj="the hospital trust|general practitioners|the vaccine programme|community pharmacies|"
             "the health ministry|nurses' unions|clinical researchers|the screening service|"
             "emergency departments|the regional health board|mental health charities".split("|"),
        verb="reduced|expanded|reviewed|delayed|trialled|funded|reorganised|measured|recommended|"
             "restricted|published|extended".split("|"),
        obj="waiting lists for hip surgery|the flu vaccination drive|out-of-hours cover|a trial of "
            "remote monitoring|the staffing rota|antibiotic prescribing|the cancer screening age|"
            "ambulance response times|a new triage protocol|funding for talking therapies|"
            "the discharge process|bed occupancy targets".split("|"),
        org="the Royal College of Nursing|CareMetrics|the Institute for Public Health|MedWatch|"
            "the Patients' Association|the Clinical Outcomes Unit".split("|"),
        thing="patients|beds|appointments|prescriptions|referrals|doses|consultations".split("|"),
    ),
    "transport": dict(
        subj="the rail operator|city planners|the bus company|cycling campaigners|the airport authority|"
             "freight hauliers|the transport ministry|tram drivers|the ferry service|ride-hailing firms|"
             "the port authority".split("|"),
        verb="reopened|electrified|rerouted|cancelled|priced|widened|timetabled|closed|modernised|"
             "surveyed|resurfaced|franchised".split("|"),
        obj="the coastal line|a protected cycle lane|night services|the congestion charge|the freight "
            "corridor|level crossings|the signalling system|season ticket prices|the orbital bus route|"
            "platform extensions|the park-and-ride sites|a fleet of electric buses".split("|"),
        org="Transit Futures|the Passenger Council|the Urban Mobility Lab|RailData|the Logistics "
            "Federation|the Cycling Trust".split("|"),
        thing="passengers|journeys|kilometres of track|buses|stations|delays|containers".split("|"),
    ),
    "technology": dict(
        subj="the open-source maintainers|cloud providers|the chip designer|browser vendors|the security "
             "team|database developers|the standards body|app developers|the compiler team|"
             "hosting companies|the package registry".split("|"),
        verb="deprecated|released|patched|benchmarked|rewrote|documented|shipped|rolled back|audited|"
             "optimised|sandboxed|archived".split("|"),
        obj="the legacy API|a new garbage collector|the TLS configuration|default telemetry|the build "
            "pipeline|memory-safe parsers|the query planner|support for older devices|the plugin system|"
            "the caching layer|signed releases|the dependency resolver".split("|"),
        org="the Linux Foundation|OpenStack Labs|ByteWorks|the Web Standards Group|CodeAudit|"
            "the Rust Security Team|Packetline".split("|"),
        thing="users|requests per second|lines of code|contributors|vulnerabilities|servers|downloads".split("|"),
    ),
    "food": dict(
        subj="small bakeries|the dairy cooperative|restaurant owners|home cooks|the food standards agency|"
             "market gardeners|coffee roasters|the school canteen service|supermarket chains|"
             "organic farmers|street food vendors".split("|"),
        verb="sourced|fermented|priced|reformulated|labelled|roasted|rationed|imported|simplified|"
             "tasted|stocked|discontinued".split("|"),
        obj="heritage wheat varieties|the sourdough starter|seasonal menus|reduced-salt bread|oat milk|"
            "single-origin beans|the lunch menu|locally grown tomatoes|the recipe for the stew|"
            "frozen vegetables|the spice blend|imported olive oil".split("|"),
        org="the Slow Food Network|the Baking Guild|FoodLab|the Nutrition Society|the Growers' Union|"
            "Kitchen Science Weekly".split("|"),
        thing="loaves|kilograms|portions|recipes|tonnes|customers|grams of sugar".split("|"),
    ),
    "science": dict(
        subj="the research team|astronomers|marine biologists|the climate model|field geologists|"
             "the particle detector|ecologists|the survey telescope|glaciologists|the laboratory|"
             "soil scientists".split("|"),
        verb="measured|observed|simulated|sampled|mapped|confirmed|catalogued|calibrated|sequenced|"
             "replicated|dated|tracked".split("|"),
        obj="the retreat of the glacier|a faint radio signal|coral bleaching|sediment cores|the migration "
            "of eels|the ocean's heat content|an exoplanet's atmosphere|microplastics in rivers|"
            "the age of the crater|nitrogen levels in the soil|seismic activity|the bird population".split("|"),
        org="the Polar Research Centre|the Marine Institute|Astro Survey Group|the Geological Society|"
            "the Biodiversity Observatory|Open Climate Data".split("|"),
        thing="samples|species|degrees|light years|metres|observations|data points".split("|"),
    ),
    "economy": dict(
        subj="the central bank|small exporters|the statistics office|pension funds|retailers|"
             "the finance ministry|manufacturers|housing associations|the labour market|"
             "credit unions|commodity traders".split("|"),
        verb="raised|froze|revised|hedged|borrowed|forecast|reported|trimmed|tightened|eased|"
             "invested|restructured".split("|"),
        obj="interest rates|the inflation forecast|export credit|rents in the capital|the minimum wage|"
            "quarterly output|the bond programme|consumer lending|the trade deficit|payroll taxes|"
            "the housing supply target|business investment".split("|"),
        org="the Fiscal Studies Unit|MarketPulse|the Chamber of Commerce|the Resolution Group|"
            "the Institute of Economic Research|TradeStat".split("|"),
        thing="jobs|percent|billion euros|firms|homes|basis points|contracts".split("|"),
    ),
    "education": dict(
        subj="the universities|primary schools|the exam board|teacher training colleges|the education "
             "ministry|adult learning centres|school governors|the inspectorate|student unions|"
             "the apprenticeship scheme".split("|"),
        verb="reformed|piloted|assessed|funded|merged|postponed|digitised|inspected|expanded|"
             "simplified|accredited|surveyed".split("|"),
        obj="the maths curriculum|tuition fees|the reading programme|free school meals|the grading "
            "system|teacher pay scales|the coding club|remote exams|the library opening hours|"
            "vocational courses|class sizes|bursaries for science".split("|"),
        org="the Learning Trust|EduData|the Teachers' Council|the Skills Observatory|the Open "
            "University Network|Classroom Research".split("|"),
        thing="pupils|teachers|schools|graduates|courses|places|applications".split("|"),
    ),
}

TECH_NAMES = ("parse_config|load_index|fetch_batch|render_page|open_session|merge_records|validate_schema|"
              "compile_rules|resolve_path|encode_frame|flush_cache|read_chunk|spawn_worker|sign_payload|"
              "list_versions|compact_log|retry_call|stream_rows|diff_trees|watch_files").split("|")
TECH_OPTS = ("--max-retries|--timeout|--workers|--dry-run|--output|--verbose|--no-cache|--profile|--strict|"
             "--config|--since|--batch-size|--color|--format|--quiet|--jobs").split("|")
TECH_TYPES = "int|str|bool|float|list[str]|dict|Path|bytes|None|Iterator[Row]".split("|")
TECH_NOUNS = ("the index|the worker pool|the cache|each record|the schema|the session|the manifest|the log|"
              "the request|the response|the lock file|the connection|the token|the buffer|the queue").split("|")


class Prose:
    """Sentences, paragraphs, headlines and short texts for one page, in one topic."""

    def __init__(self, rng: random.Random, topic: str | None = None) -> None:
        self.rng = rng
        self.topic = topic or rng.choice(sorted(TOPICS))
        self.lex = TOPICS[self.topic]

    # -- words --------------------------------------------------------------------------------
    def pick(self, key: str) -> str:
        if key in self.lex:
            return self.rng.choice(self.lex[key])
        table = {"place": PLACES, "role": ROLES, "time": TIMES, "conn": CONNECTIVES, "adj": ADJ}
        return self.rng.choice(table[key])

    def person(self) -> str:
        return f"{self.rng.choice(FIRST)} {self.rng.choice(LAST)}"

    def number(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return f"{self.rng.randint(2, 95)} percent"
        if r < 0.6:
            return f"{self.rng.randint(12, 980):,} {self.pick('thing')}"
        if r < 0.8:
            return f"{self.rng.randint(1, 40)}.{self.rng.randint(0, 9)} million {self.pick('thing')}"
        return f"{self.rng.choice(['two', 'three', 'four', 'five', 'six', 'eight', 'a dozen'])} {self.pick('thing')}"

    def fill(self, pattern: str) -> str:
        out = pattern
        for key, fn in (
            ("{S}", lambda: self.pick("subj")), ("{V}", lambda: self.pick("verb")), ("{O}", lambda: self.pick("obj")),
            ("{ORG}", lambda: self.pick("org")), ("{P}", self.person), ("{PL}", lambda: self.pick("place")),
            ("{R}", lambda: self.pick("role")), ("{T}", lambda: self.pick("time")), ("{C}", lambda: self.pick("conn")),
            ("{A}", lambda: self.pick("adj")), ("{N}", self.number), ("{Y}", lambda: str(self.rng.randint(1998, 2024))),
        ):
            while key in out:
                out = out.replace(key, fn(), 1)
        return out[0].upper() + out[1:]

    # -- registers ----------------------------------------------------------------------------
    NEWS = [
        "{S} {V} {O} {T}, a move that affected about {N} in {PL}.",
        "According to figures from {ORG}, {S} {V} {O} after a {A} rise in costs.",
        "“We {V} {O} because nobody else would,” said {P}, {R} at {ORG}.",
        "{C}, {S} have not yet {V} {O}, and critics say the delay is {A}.",
        "The decision to review {O} came after {S} in {PL} {V} their plans {T}.",
        "{P}, {R} at {ORG}, said the effect on {O} had been {A} but real.",
        "In {PL}, {S} {V} {O}, while neighbouring councils waited for guidance.",
        "Officials expect {N} to be affected by the change to {O} before {Y}.",
        "{C}, the figures suggest that {S} {V} {O} faster than planned.",
        "A report published by {ORG} found that {O} cost roughly {N} more than expected.",
        "Some of {S} argue that {O} should be {V} only when demand falls.",
        "The plan, first drafted in {Y}, would see {S} finance {O} over five years.",
        "{S} declined to comment on whether {O} would be {V} again.",
        "“It is a {A} step, but it will not fix {O} on its own,” {P} told reporters.",
        "Data for {PL} show that {S} {V} {O} in {Y}, the first time in a decade.",
        "Local residents in {PL} have complained that {O} was {V} without consultation.",
        "The change follows a {A} year in which {S} struggled with {O}.",
        "{C}, it remains unclear how {S} will pay for {O} once the grant ends.",
        "Asked about {O}, {P} said the timetable was {A} and would be reviewed {T}.",
        "Analysts at {ORG} estimate that the programme will reach {N} by {Y}.",
    ]
    BLOG = [
        "I have been thinking about {O} ever since {S} in {PL} {V} it {T}.",
        "Honestly, the first time I looked at {O} I thought it was {A}.",
        "If you have never tried it, {O} is easier than it sounds, and you do not need much.",
        "My own experience with {O} was {A}: it took me about {N} to get it right.",
        "The trick, as {P} once told me, is to leave {O} alone for longer than feels comfortable.",
        "I asked a friend who works with {S} what she thought, and her answer surprised me.",
        "{C}, I would not recommend {O} to someone who is just starting out.",
        "Here is what I learned after a {A} month of testing {O} at home.",
        "We spent a weekend in {PL} and came back with strong opinions about {O}.",
        "There is a lot of advice online about {O}, and most of it contradicts itself.",
        "What changed my mind was a {A} conversation with {P}, {R} at {ORG}.",
        "It turns out that {S} {V} {O} {T}, which explains a lot.",
        "The short version: start small, write things down, and do not buy everything at once.",
        "Looking back, I wish someone had told me that {O} matters more than the equipment.",
        "I will update this post if {S} change their minds about {O}.",
    ]
    FORUM = [
        "Has anyone else noticed that {O} stopped working after the last update?",
        "I had the same problem with {O} {T} and fixed it by resetting everything.",
        "Not sure this helps, but {S} in {PL} {V} {O} and it worked for them.",
        "Thanks, that explains it. I was under the impression that {O} was {A} by default.",
        "Can you post the exact error? Without it we are just guessing about {O}.",
        "Same here. It started {T} and I have tried about {N} of the suggested fixes.",
        "For what it is worth, {P} wrote a guide on {O} that covers this case.",
        "I disagree a little: {O} is {A}, but the real issue is elsewhere.",
        "Update: I {V} {O} as suggested and the problem has not come back.",
        "This is a known issue, see the tracker; {S} {V} a fix {T}.",
        "Could this be related to {O}? I saw something similar in {PL}.",
        "Marking this as solved. The answer above about {O} was the right one.",
        "Just to add a data point: it happens on my machine too, roughly {N} times a day.",
        "The workaround is {A}, so I would not rely on it for anything important.",
    ]
    COMMENT = [
        "Great article, but you left out the part about {O}.",
        "I live in {PL} and I can confirm that {S} {V} {O} {T}.",
        "This is exactly what happened to my family when {S} {V} {O}.",
        "Who is going to pay for {O}? Not the people who decided it, that is for sure.",
        "Interesting read. I would love a follow-up on {O}.",
        "The numbers quoted here about {O} look {A} to me, can you share the source?",
        "{P} made the same point years ago and nobody listened.",
        "Typical. They {V} {O} and then act surprised when it goes wrong.",
        "Thanks for writing this, it helped me understand {O} a lot better.",
        "I used to work with {S} and the story is more complicated than this.",
        "Not convinced. {O} was always going to be {A}.",
        "Can someone explain why {S} could not simply {V} {O} earlier?",
    ]
    PROMO = [
        "Subscribe to get the best of our coverage on {O} in your inbox every morning.",
        "Join {N} readers who get our weekly briefing on {O}.",
        "Support independent journalism: become a member today and read without limits.",
        "Our newsletter explains {O} in five minutes, every Friday.",
        "Sign up for free and never miss a story about {O} again.",
    ]
    HEADLINE = [
        "{S} {V} {O}",
        "Why {O} matters more than you think",
        "{S} in {PL} {V} {O} {T}",
        "What the {A} change to {O} means for {PL}",
        "{P} on {O}: ‘We had no choice’",
        "Inside the {A} plan to rethink {O}",
        "How {S} {V} {O}",
        "{N} affected as {S} {V} {O}",
    ]

    def sentence(self, register: str = "news") -> str:
        patterns = {"news": self.NEWS, "blog": self.BLOG + self.NEWS[:8], "forum": self.FORUM,
                    "comment": self.COMMENT, "promo": self.PROMO}[register]
        return self.fill(self.rng.choice(patterns))

    def paragraph(self, register: str = "news", lo: int = 2, hi: int = 5) -> str:
        return " ".join(self.sentence(register) for _ in range(self.rng.randint(lo, hi)))

    def headline(self) -> str:
        h = self.fill(self.rng.choice(self.HEADLINE))
        return h.rstrip(".")

    def short(self, lo: int = 2, hi: int = 6) -> str:
        """A short title-like phrase (for menu items, tags, related links)."""
        words = self.fill("{O}").split()
        n = self.rng.randint(lo, hi)
        return " ".join(words[:n]).strip(",.").capitalize() or "News"

    def heading(self) -> str:
        return self.fill(self.rng.choice([
            "What changed {T}", "The cost of {O}", "Why {S} are worried", "A {A} response", "Lessons from {PL}",
            "Who pays for {O}", "What comes next", "The view from {PL}", "Numbers behind {O}", "{A} expectations",
            "How {O} works", "The case against {O}", "Voices from {PL}", "A timeline of {O}",
        ]))

    def list_items(self, n: int, register: str = "news") -> list[str]:
        items = []
        for _ in range(n):
            if self.rng.random() < 0.5:
                items.append(self.fill(self.rng.choice([
                    "{O} in {PL}", "{A} changes to {O}", "{N} affected by {O}", "{S} and {O}",
                    "a {A} review of {O}", "{O}, according to {ORG}", "funding for {O} until {Y}",
                ])))
            else:
                items.append(self.sentence(register))
        return items

    # -- technical register ---------------------------------------------------------------------
    def tech_sentence(self) -> str:
        r = self.rng
        name, opt, noun = r.choice(TECH_NAMES), r.choice(TECH_OPTS), r.choice(TECH_NOUNS)
        other, typ = r.choice(TECH_NAMES), r.choice(TECH_TYPES)
        return r.choice([
            f"Call {name}() before {other}() so that {noun} is ready.",
            f"The {opt} option limits how long {noun} may stay open.",
            f"{name}() returns a {typ} describing {noun}, or raises an error when it is missing.",
            f"By default {noun} is rebuilt on every run; pass {opt} to reuse it.",
            f"When {noun} is larger than the limit, {name}() reads it in chunks.",
            f"Since version {r.randint(1, 6)}.{r.randint(0, 12)}, {other}() accepts a {typ} as well.",
            f"Note that {noun} is not thread-safe, so share it between workers with care.",
            f"Set {opt} in the configuration file to make this the default for every project.",
            f"If {name}() fails with a timeout, retry it with a larger {opt} value.",
            f"The result of {other}() is cached, so calling it twice costs nothing.",
            f"Use {name}() when you need {noun} without loading everything else.",
            f"Errors raised inside {other}() are logged and then re-raised to the caller.",
            f"Older releases wrote {noun} to the working directory; it now lives in the cache folder.",
            f"{opt} can be given several times; the last value wins.",
        ])

    def tech_paragraph(self, lo: int = 2, hi: int = 5) -> str:
        return " ".join(self.tech_sentence() for _ in range(self.rng.randint(lo, hi)))

    def code(self, lang: str = "python") -> str:
        r = self.rng
        a, b = r.sample(TECH_NAMES, 2)
        if lang == "shell":
            return "\n".join(f"$ tool {a.replace('_', '-')} {r.choice(TECH_OPTS)} {r.randint(1, 64)}" for _ in range(r.randint(1, 3)))
        if lang == "js":
            return (f"const result = await {a}({{ limit: {r.randint(2, 500)} }});\n"
                    f"for (const item of result.items) {{\n  console.log(item.{b});\n}}")
        return (f"from tool import {a}, {b}\n\n"
                f"records = {a}(\"data/{b}.json\", retries={r.randint(1, 9)})\n"
                f"for record in records:\n    {b}(record, strict={r.choice(['True', 'False'])})")
