"""English for the words Chinese, Japanese and Korean posts use about a failing DataLoader.

The catalogue's prose signals are written in English. A post in another language keeps the
error lines in English but tells the rest (it hangs, memory grows, the augmentations are the
same) in its own words; `gloss` writes the English after each such word ("卡住 (stuck)"), so
the same signals read both. Only the DataLoader's own vocabulary is here, not a dictionary.
"""

from __future__ import annotations

import re

ENGLISH: dict[str, tuple[str, ...]] = {
    "shared memory": ("共享内存", "共享記憶體", "共有メモリ", "공유 메모리", "공유메모리"),
    "memory leak": ("内存泄漏", "内存泄露", "記憶體洩漏", "メモリリーク", "메모리 누수"),
    "out of memory": ("内存不足", "内存不够", "内存溢出", "内存爆", "爆内存", "記憶體不足",
                      "メモリ不足", "메모리 부족"),
    "memory": ("内存", "記憶體", "メモリ", "메모리"),
    "grows": ("不断增加", "一直增加", "持续增加", "不断增长", "一直增长", "持续增长", "逐渐增加",
              "増え続け", "増加し続け", "계속 증가"),
    "stuck": ("卡住", "卡死", "卡在", "假死", "不动了", "ハング", "フリーズ", "固まる", "固まっ",
              "止まっ", "멈춤", "멈춰", "멈추"),
    "deadlock": ("死锁", "死鎖", "デッドロック", "교착"),
    "no error": ("没有报错", "沒有報錯", "不报错", "エラーが出ない", "에러 없이"),
    "multiprocessing": ("多进程", "多進程", "マルチプロセス", "멀티프로세스", "다중 프로세스"),
    "worker process": ("子进程", "子進程", "子プロセス", "자식 프로세스"),
    "processes": ("进程", "進程", "プロセス", "프로세스"),
    "all cores": ("全核心", "全部核心", "所有核心", "全コア", "모든 코어"),
    "number of cores": ("核心数", "核数", "コア数", "코어 수"),
    "random": ("随机", "隨機", "ランダム", "랜덤", "무작위"),
    "the same": ("一样", "一樣", "相同", "同样的", "同じ", "동일", "똑같"),
    "duplicated": ("重复", "重複", "중복"),
    "seed": ("随机种子", "種子", "种子", "シード", "시드"),
    "slow": ("很慢", "变慢", "太慢", "遅い", "遅く", "느려", "느림"),
    "killed": ("被杀", "被殺", "被kill", "强制终止", "被终止", "強制終了", "강제 종료"),
    "page file": ("页面文件", "分页文件", "虚拟内存", "ページファイル", "仮想メモリ",
                  "페이지 파일", "가상 메모리"),
    "too many open files": ("打开文件过多", "打开的文件过多", "文件句柄数", "ファイルを開きすぎ"),
    "file handle": ("句柄", "ハンドル", "핸들"),
    "cannot pickle": ("无法序列化", "不能序列化", "无法pickle", "シリアライズできない",
                      "pickleできない", "직렬화할 수 없"),
    "different sizes": ("尺寸不一致", "大小不一致", "大小不同", "尺寸不同", "形状不一致",
                        "サイズが異なる", "サイズが違う", "크기가 다른", "크기가 달라"),
    "dataset": ("数据集", "資料集", "データセット", "데이터셋"),
    "data loading": ("数据加载", "加载数据", "資料載入", "データの読み込み", "データ読み込み",
                     "데이터 로딩", "데이터 로드"),
}
_TO_ENGLISH = {word: english for english, words in ENGLISH.items() for word in words}
_WORDS = re.compile("|".join(re.escape(w) for w in sorted(_TO_ENGLISH, key=len, reverse=True)))


def gloss(text: str) -> str:
    """``text`` with the English written after each DataLoader word of the glossary."""
    return _WORDS.sub(lambda m: f"{m[0]} ({_TO_ENGLISH[m[0]]})", text)
