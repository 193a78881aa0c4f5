"""Two pages and an answer about them, with its claims: what the citation-check tests read."""

ALPHA = ("<html><head><title>Alpha</title></head><body><article><p>The alpha project started in 2019 and has "
         "40 contributors. It is written in Rust.</p></article></body></html>")
BETA = ("<html><head><title>Beta</title></head><body><article><p>Beta is a database released in 2021, licensed "
        "under the MIT license.</p></article></body></html>")
ANSWER = ("Alpha started in 2019 [1]. It has 40 contributors [1]. Beta is licensed under the GPL [2]. "
          "Beta was released in 2021 [2]. Both are written in Rust [1][2].")
CLAIMS = ["Alpha started in 2019 [1].", "It has 40 contributors [1].", "Beta is licensed under the GPL [2].",
          "Beta was released in 2021 [2].", "Both are written in Rust [1][2]."]
