// ChessPuzzle example player in C++: uniformly random legal clicks (PLAYER_SEED, default 1).
// Built by the `build` command of player.toml before the run.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace std;

static const int LINES[8][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
static const int KNIGHT[8][2] = {{-2, -1}, {-2, 1}, {-1, -2}, {-1, 2}, {1, -2}, {1, 2}, {2, -1}, {2, 1}};

int h, w, k;
vector<string> top;       // the visible tiles
vector<vector<int>> left_; // tiles left on each cell

bool inside(int r, int c) { return r >= 0 && r < h && c >= 0 && c < w; }

// The cells that may be clicked after `tile` was removed from (r, c).
vector<pair<int, int>> allowed(int r, int c, char tile) {
    vector<pair<int, int>> cells;
    if (tile >= '1' && tile <= '4') {
        int d = tile - '0';
        for (auto &l : LINES) cells.push_back({r + l[0] * d, c + l[1] * d});
    } else if (tile == 'K') {
        for (auto &j : KNIGHT) cells.push_back({r + j[0], c + j[1]});
    } else {  // B, R, Q land only on the edge cell of each direction
        int from = tile == 'B' ? 4 : 0, to = tile == 'R' ? 4 : 8;
        for (int i = from; i < to; i++) {
            int y = r, x = c;
            while (inside(y + LINES[i][0], x + LINES[i][1])) y += LINES[i][0], x += LINES[i][1];
            cells.push_back({y, x});
        }
    }
    vector<pair<int, int>> ok;
    for (auto [y, x] : cells)
        if (inside(y, x) && !(y == r && x == c) && left_[y][x] > 0) ok.push_back({y, x});
    return ok;
}

int main() {
    const char *seed = getenv("PLAYER_SEED");
    mt19937 rng(seed ? atoi(seed) : 1);
    cin >> h >> w >> k;
    top.resize(h);
    for (auto &row : top) cin >> row;
    left_.assign(h, vector<int>(w, k));
    int r = rng() % h, c = rng() % w;
    while (true) {
        // endl flushes: the judge waits for the whole line.
        cout << r << ' ' << c << endl;
        string revealed;
        if (!(cin >> revealed)) break;  // the judge closed our input: the game is over
        char tile = top[r][c];
        top[r][c] = revealed[0];
        left_[r][c]--;
        auto next = allowed(r, c, tile);
        auto [nr, nc] = next[rng() % next.size()];
        r = nr, c = nc;
    }
}
